/**
 * A quick test for the common case of ENVELOPE_SCHEMA (libs/events/src/envelope.ts): every field
 * present with its type, nothing else, and `occurredAt` in the form `Date.toISOString()` writes.
 * It accepts only values the full validator accepts too, so a caller runs the full validator
 * when this says no and gets its precise error; a rebuild folding 100,000s of envelopes spends
 * that validator (the date-time format above all) only on the odd one.
 */
const ISO_UTC = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?Z$/;
const DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** RFC 3339 UTC date-time with a real calendar day; anything else is left to the full validator. */
export function isPlainUtcDateTime(text: string): boolean {
  if (text.length === 24) return isToIsoString(text);
  const m = ISO_UTC.exec(text);
  if (m === null) return false;
  return isRealMoment(Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
}

/** Exactly `YYYY-MM-DDTHH:MM:SS.mmmZ`, what Date.toISOString() writes: read by character, no match objects per event. */
function isToIsoString(text: string): boolean {
  if (text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45 || text.charCodeAt(10) !== 84 || text.charCodeAt(13) !== 58
    || text.charCodeAt(16) !== 58 || text.charCodeAt(19) !== 46 || text.charCodeAt(23) !== 90) return false;
  const year = digits(text, 0, 4);
  const millis = digits(text, 20, 3);
  if (year < 0 || millis < 0) return false;
  return isRealMoment(year, digits(text, 5, 2), digits(text, 8, 2), digits(text, 11, 2), digits(text, 14, 2), digits(text, 17, 2));
}

/** The number written by `count` ASCII digits at `at`, or -1 if any is not a digit. */
function digits(text: string, at: number, count: number): number {
  let value = 0;
  for (let i = at; i < at + count; i += 1) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    value = value * 10 + d;
  }
  return value;
}

function isRealMoment(year: number, month: number, day: number, hour: number, minute: number, second: number): boolean {
  if (month < 1 || month > 12 || day < 1 || day > DAYS[month - 1]) return false;
  if (month === 2 && day === 29 && !(year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0))) return false;
  return hour >= 0 && hour <= 23 && minute >= 0 && minute <= 59 && second >= 0 && second <= 59;
}

const nonEmpty = (v: unknown) => typeof v === 'string' && v.length > 0;

/** True only for a value ENVELOPE_SCHEMA certainly accepts. */
export function isPlainEnvelope(raw: unknown): boolean {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return false;
  const e = raw as Record<string, unknown>;
  // Nine keys, all nine required ones present: no additional property.
  if (Object.keys(e).length !== 9) return false;
  const { version, position, data } = e;
  return nonEmpty(e.id) && nonEmpty(e.type) && nonEmpty(e.stream)
    && typeof version === 'number' && Number.isInteger(version) && version >= 1
    && typeof position === 'number' && Number.isInteger(position) && position >= 0
    && typeof e.occurredAt === 'string' && isPlainUtcDateTime(e.occurredAt)
    && typeof e.actor === 'string' && typeof e.correlationId === 'string'
    && typeof data === 'object' && data !== null && !Array.isArray(data);
}
