import { hasUnstorableText, INSTANT_FORM, isStrictVersion, parseInstant } from '@estate/contracts';
import { TRAIL_OUTCOMES } from './trail-outcomes';
import { TRAIL_TYPES } from './trail-types';

/** A validated trail query: newest first, strictly below `beforeSeq` when paging. */
export interface AuditQuery {
  tool?: string;
  version?: string;
  principal?: string;
  type?: string;
  /** An outcome as recorded (`ok`, `refused:invalid_arguments`) or its class before the colon (`refused`). */
  outcome?: string;
  /** Inclusive lower bound on occurred_at. */
  from?: Date;
  /** Exclusive upper bound on occurred_at. */
  to?: Date;
  limit: number;
  beforeSeq?: number;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; parameter: string; message: string };

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 500;

const CURSOR_PREFIX = 'seq:';

/** The cursor is opaque to clients; today it carries the last seq of the page. */
export function encodeCursor(seq: number): string {
  return Buffer.from(`${CURSOR_PREFIX}${seq}`, 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string): number | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  const match = /^seq:([1-9][0-9]{0,15})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) return undefined;
  const seq = Number(match[1]);
  return Number.isSafeInteger(seq) ? seq : undefined;
}

const fail = (parameter: string, message: string): { ok: false; parameter: string; message: string } => ({
  ok: false,
  parameter,
  message,
});

/**
 * Longest identifier (tool, version, principal, type, outcome) a filter may name. The trail keeps a
 * longer name as a bounded key (storable-entry.ts); a filter finds it by the name or by that key.
 */
export const MAX_IDENTIFIER_LENGTH = 2048;

/** The parameters `GET /v1/audit` reads (`format` chooses an export); anything else is a typo that would widen the answer. */
const AUDIT_PARAMETERS = ['tool', 'version', 'principal', 'type', 'outcome', 'from', 'to', 'limit', 'cursor', 'format'];

/** The first parameter of `raw` not in `known`, refused: a misspelt filter would silently select more. */
export function unknownParameter(raw: Record<string, unknown>, known: readonly string[]): Extract<Parsed<never>, { ok: false }> | undefined {
  const unknown = Object.keys(raw).find((key) => !known.includes(key));
  return unknown === undefined ? undefined : { ok: false, parameter: unknown, message: `"${unknown}" is not a parameter here; one of ${known.join(', ')}` };
}

/** A query parameter given once as text; repeated or structured parameters are refused. */
function single(raw: Record<string, unknown>, name: string): Parsed<string | undefined> {
  return parseIdentifier(raw[name], name);
}

/**
 * One identifier given once as text, at most MAX_IDENTIFIER_LENGTH characters, holding nothing
 * PostgreSQL refuses to compare (U+0000, a lone surrogate). Empty is refused: read as absent, a
 * filter a client meant to fill would widen the answer to everything.
 */
export function parseIdentifier(value: unknown, name: string): Parsed<string | undefined> {
  if (value === undefined) return { ok: true, value: undefined };
  if (typeof value !== 'string') return fail(name, `"${name}" must be given once, as text`);
  if (value === '') return fail(name, `"${name}" is empty; leave it out to not filter on it`);
  if (value.length > MAX_IDENTIFIER_LENGTH) return fail(name, `"${name}" must be at most ${MAX_IDENTIFIER_LENGTH} characters`);
  if (hasUnstorableText(value)) return fail(name, `"${name}" holds U+0000 or a lone surrogate`);
  return { ok: true, value };
}

function parseDate(raw: Record<string, unknown>, name: string): Parsed<Date | undefined> {
  const text = single(raw, name);
  if (!text.ok || text.value === undefined) return text as Parsed<undefined>;
  const instant = parseInstant(text.value);
  if (instant.ok) return { ok: true, value: new Date(instant.time) };
  return fail(name, instant.problem === 'form' ? `"${name}" must be ${INSTANT_FORM}` : `"${name}" must name a real day from year 1 to 9999`);
}

function parseLimit(raw: Record<string, unknown>): Parsed<number> {
  const text = single(raw, 'limit');
  if (!text.ok) return text;
  if (text.value === undefined) return { ok: true, value: DEFAULT_LIMIT };
  const limit = /^[0-9]{1,4}$/.test(text.value) ? Number(text.value) : NaN;
  if (!(limit >= 1 && limit <= MAX_LIMIT)) return fail('limit', `"limit" must be an integer from 1 to ${MAX_LIMIT}`);
  return { ok: true, value: limit };
}

function parseCursor(raw: Record<string, unknown>): Parsed<number | undefined> {
  const text = single(raw, 'cursor');
  if (!text.ok || text.value === undefined) return text as Parsed<undefined>;
  const seq = decodeCursor(text.value);
  if (seq === undefined) return fail('cursor', '"cursor" is not a cursor this service issued');
  return { ok: true, value: seq };
}

/** Validates `GET /v1/audit` query parameters; the first problem names its parameter. */
export function parseAuditQuery(raw: Record<string, unknown>): Parsed<AuditQuery> {
  const unknown = unknownParameter(raw, AUDIT_PARAMETERS);
  if (unknown) return unknown;
  const texts: Record<string, string | undefined> = {};
  for (const name of ['tool', 'version', 'principal', 'type', 'outcome'] as const) {
    const parsed = single(raw, name);
    if (!parsed.ok) return parsed;
    texts[name] = parsed.value;
  }
  // These match exactly, so a value the trail can never hold would answer an empty page, not a mistake.
  if (texts.version !== undefined && !isStrictVersion(texts.version)) {
    return fail('version', '"version" must be a SemVer 2.0.0 version such as 1.2.0 (MAJOR.MINOR.PATCH, no prefix, no range)');
  }
  if (texts.type !== undefined && !TRAIL_TYPES.includes(texts.type)) {
    return fail('type', `"type" must be one of ${TRAIL_TYPES.join(', ')}`);
  }
  if (texts.outcome !== undefined && !TRAIL_OUTCOMES.includes(texts.outcome)) {
    return fail('outcome', `"outcome" must be one of ${TRAIL_OUTCOMES.join(', ')}`);
  }
  const from = parseDate(raw, 'from');
  if (!from.ok) return from;
  const to = parseDate(raw, 'to');
  if (!to.ok) return to;
  const limit = parseLimit(raw);
  if (!limit.ok) return limit;
  const cursor = parseCursor(raw);
  if (!cursor.ok) return cursor;
  return {
    ok: true,
    value: { ...texts, from: from.value, to: to.value, limit: limit.value, beforeSeq: cursor.value },
  };
}
