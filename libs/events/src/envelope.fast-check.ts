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
  const m = ISO_UTC.exec(text);
  if (m === null) return false;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (month < 1 || month > 12 || day < 1 || day > DAYS[month - 1]) return false;
  if (month === 2 && day === 29 && !(year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0))) return false;
  return Number(m[4]) <= 23 && Number(m[5]) <= 59 && Number(m[6]) <= 59;
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
