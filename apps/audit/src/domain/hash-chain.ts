import { hash } from 'node:crypto';
import type { AuditEntry, AuditEntryContent } from './audit-entry.mapper';

/** The prev_hash of the first entry. */
export const GENESIS_HASH = '0'.repeat(64);

/**
 * JSON with object keys sorted at every depth and no whitespace, so the same content always
 * serializes to the same bytes — also after a jsonb round trip, which reorders keys.
 */
export function canonicalJson(value: unknown): string {
  // Plain JSON data (what JSON.parse returns, the common case) is put in key order and handed to
  // the native serializer, about twice as fast as building the text here.
  const ordered = inKeyOrder(value);
  if (ordered !== NOT_PLAIN) return JSON.stringify(ordered) ?? 'null';
  return builtCanonicalJson(value);
}

const NOT_PLAIN = Symbol('not plain JSON data');

/**
 * The value with every object's keys in sorted order (objects already in order are kept, not
 * copied), or NOT_PLAIN when JSON.stringify of it could differ from the canonical text: a value
 * with no JSON form (function, symbol, bigint), an object that is not a plain object or array
 * (toJSON, Date), or a key the engine would not keep in insertion order (array-index keys come
 * first in any object, `__proto__` would set the prototype).
 */
function inKeyOrder(value: unknown): unknown {
  if (value === null || typeof value !== 'object') {
    const kind = typeof value;
    return kind === 'string' || kind === 'number' || kind === 'boolean' || kind === 'undefined' || value === null ? value : NOT_PLAIN;
  }
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i += 1) {
      const item = value[i] as unknown;
      const ordered = inKeyOrder(item);
      if (ordered === NOT_PLAIN) return NOT_PLAIN;
      if (ordered !== item) (copy ??= value.slice())[i] = ordered;
    }
    return copy ?? value;
  }
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype !== Object.prototype && prototype !== null) return NOT_PLAIN;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  const sorted = inOrder(keys);
  if (!sorted) keys.sort();
  let copy: Record<string, unknown> | undefined = sorted ? undefined : {};
  for (let i = 0; i < keys.length; i += 1) {
    const key = keys[i];
    const first = key.charCodeAt(0);
    if ((first >= 48 && first <= 57) || key === '__proto__') return NOT_PLAIN;
    const item = record[key];
    const ordered = inKeyOrder(item);
    if (ordered === NOT_PLAIN) return NOT_PLAIN;
    if (copy === undefined && ordered !== item) {
      copy = {};
      for (let j = 0; j < i; j += 1) copy[keys[j]] = record[keys[j]];
    }
    if (copy !== undefined) copy[key] = ordered;
  }
  return copy ?? value;
}

/**
 * canonicalJson written out key by key, for the rare values inKeyOrder cannot hand to
 * JSON.stringify (a key starting with a digit, `__proto__`, a Date, a function).
 */
function builtCanonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    const text = JSON.stringify(value);
    // undefined (absent) has no JSON form; the caller drops such keys, as JSON.stringify does.
    return text === undefined ? 'null' : text;
  }
  if (Array.isArray(value)) return `[${value.map(builtCanonicalJson).join(',')}]`;
  const record = value as Record<string, unknown>;
  const members = Object.keys(record).sort().filter((key) => record[key] !== undefined);
  return `{${members.map((key) => `${JSON.stringify(key)}:${builtCanonicalJson(record[key])}`).join(',')}}`;
}

function inOrder(keys: string[]): boolean {
  for (let i = 1; i < keys.length; i += 1) if (keys[i - 1] > keys[i]) return false;
  return true;
}

/** sha256 hex of prev_hash followed by the canonical JSON of the entry's content fields. */
export function entryHash(prevHash: string, content: AuditEntryContent, payloadText?: string): string {
  return hash('sha256', prevHash + canonicalEntry(content, payloadText ?? canonicalJson(content.payload)), 'hex');
}

/**
 * canonicalJson of the ten content fields, written out in their sorted key order instead of
 * built as an object and sorted: every entry is hashed on ingest and on verify. Equal to the
 * generic form (hash-chain.spec.ts holds the two together); a field left undefined takes the
 * generic path, which drops it.
 */
export function canonicalEntry(c: AuditEntryContent, payloadText: string): string {
  if (c.tool === undefined || c.version === undefined || c.outcome === undefined || c.payload === undefined) {
    return canonicalJson({
      eventId: c.eventId, topic: c.topic, type: c.type, stream: c.stream, tool: c.tool, version: c.version,
      principal: c.principal, outcome: c.outcome, occurredAt: c.occurredAt, payload: c.payload,
    });
  }
  return entryText(c, payloadText);
}

/** A stored entry without its payload: every field is a string or null, as the table holds it. */
export type StoredLink = Omit<AuditEntry, 'payload'>;

/** The canonical entry from fields that are all present (null counts as present) and the payload's canonical text. */
function entryText(c: Omit<AuditEntryContent, 'payload'>, payloadText: string): string {
  const j = JSON.stringify;
  return `{"eventId":${j(c.eventId)},"occurredAt":${j(c.occurredAt)},"outcome":${j(c.outcome)},"payload":${payloadText},"principal":${j(c.principal)},`
    + `"stream":${j(c.stream)},"tool":${j(c.tool)},"topic":${j(c.topic)},"type":${j(c.type)},"version":${j(c.version)}}`;
}

export interface VerifyResult {
  ok: boolean;
  entries: number;
  firstBrokenSeq?: number;
  /** The newest entry's hash when the chain is intact: keep it elsewhere to notice a rewritten table. */
  headHash?: string;
}

/** What the one-row chain head says: the newest entry's seq and hash (0 and genesis when empty). */
export interface ChainHead {
  lastSeq: number;
  hash: string;
}

/**
 * Folds stored entries in seq order and stops trusting the chain at the first entry whose link
 * to its predecessor, or whose own hash, does not recompute. Feed it in batches; call `result`.
 */
export class ChainVerifier {
  private expectedPrev = GENESIS_HASH;
  private lastSeq = 0;
  private count = 0;
  private brokenAt?: number;

  /** The head read in the same snapshot as the entries. */
  constructor(private readonly head: ChainHead) {}

  accept(link: AuditEntry): void {
    this.count += 1;
    if (this.brokenAt !== undefined) return;
    this.settle(link, link.prevHash === this.expectedPrev && entryHash(link.prevHash, link) === link.hash);
  }

  /**
   * An entry read back with its payload as stored text. The trail stores the canonical text it
   * hashed, so hashing that text as read is the same check as `accept` without parsing and
   * serializing the payload again; text that does not hash (written differently, or changed) is
   * parsed and canonicalized, so the verdict is always the one `accept` gives. Text that is not
   * JSON breaks the chain there.
   */
  acceptStored(link: StoredLink, payloadText: string): void {
    this.count += 1;
    if (this.brokenAt !== undefined) return;
    if (link.prevHash !== this.expectedPrev) return this.settle(link, false);
    if (hash('sha256', link.prevHash + entryText(link, payloadText), 'hex') === link.hash) return this.settle(link, true);
    const payload = parsed(payloadText);
    this.settle(link, payload !== NOT_JSON && entryHash(link.prevHash, { ...link, payload: payload as AuditEntry['payload'] }) === link.hash);
  }

  private settle(link: { seq: number; hash: string }, linked: boolean): void {
    // An entry past the head was not appended through the chain.
    if (!linked || link.seq > this.head.lastSeq) {
      this.brokenAt = link.seq;
      return;
    }
    this.expectedPrev = link.hash;
    this.lastSeq = link.seq;
  }

  /**
   * Links alone cannot show entries removed from the end: the head still names the newest hash,
   * so a head that disagrees with the last entry is a break too.
   */
  result(): VerifyResult {
    if (this.brokenAt !== undefined) return { ok: false, entries: this.count, firstBrokenSeq: this.brokenAt };
    if (this.lastSeq !== this.head.lastSeq) return { ok: false, entries: this.count, firstBrokenSeq: this.lastSeq + 1 };
    if (this.expectedPrev !== this.head.hash) return { ok: false, entries: this.count, firstBrokenSeq: this.head.lastSeq };
    return { ok: true, entries: this.count, headHash: this.head.hash };
  }
}

const NOT_JSON = Symbol('not JSON');

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return NOT_JSON;
  }
}
