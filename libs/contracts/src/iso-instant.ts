/**
 * A date (midnight UTC) or a date-time with its zone: how every query of the estate names an
 * instant (audit's `from`/`to`, the feed's `since`, discovery's `at`). A time without a zone would
 * be read in the server's zone, which the caller cannot see.
 */
const ISO_INSTANT = /^(\d{4})-(\d{2})-(\d{2})(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/;

/** How an instant is written, for refusals. */
export const INSTANT_FORM = 'an ISO 8601 date or date-time with a time zone (Z or ±hh:mm), such as 2026-12-02T03:00:00Z';

/** The years PostgreSQL's timestamptz and ISO 8601's four-digit form share. */
const FIRST_INSTANT = Date.parse('0001-01-01T00:00:00Z');
const LAST_INSTANT = Date.parse('9999-12-31T23:59:59.999Z');

/** `withTime`: a date-time was written, not a bare date. `day`: well formed, but no such day (or outside years 1 to 9999). */
export type Instant = { ok: true; time: number; withTime: boolean } | { ok: false; problem: 'form' | 'day' };

/**
 * An instant in that form on a real day of years 1 to 9999. Date.parse alone accepts loose forms
 * ("1", "May 5") and rolls 2024-02-30 over into March.
 */
export function parseInstant(text: string): Instant {
  const match = ISO_INSTANT.exec(text);
  const time = Date.parse(text);
  if (!match || Number.isNaN(time)) return { ok: false, problem: 'form' };
  if (!isCalendarDay(Number(match[1]), Number(match[2]), Number(match[3])) || time < FIRST_INSTANT || time > LAST_INSTANT) return { ok: false, problem: 'day' };
  return { ok: true, time, withTime: match[4] !== undefined };
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Whether the Gregorian calendar has that day (no clock involved: this library stays pure). */
function isCalendarDay(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return day <= (month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]);
}
