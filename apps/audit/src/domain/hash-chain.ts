import { createHash } from 'node:crypto';
import type { AuditEntry, AuditEntryContent } from './audit-entry.mapper';

/** The prev_hash of the first entry. */
export const GENESIS_HASH = '0'.repeat(64);

/**
 * JSON with object keys sorted at every depth and no whitespace, so the same content always
 * serializes to the same bytes — also after a jsonb round trip, which reorders keys.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    const text = JSON.stringify(value);
    // undefined (absent) has no JSON form; the caller drops such keys, as JSON.stringify does.
    return text === undefined ? 'null' : text;
  }
  // Plain loops rather than map/filter/join: every trail entry is serialized here on ingest and on verify.
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i += 1) out += (i > 0 ? ',' : '') + canonicalJson(value[i]);
    return `${out}]`;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  let out = '{';
  for (const key of keys) {
    const item = record[key];
    if (item === undefined) continue;
    out += `${out.length > 1 ? ',' : ''}${JSON.stringify(key)}:${canonicalJson(item)}`;
  }
  return `${out}}`;
}

/** sha256 hex of prev_hash followed by the canonical JSON of the entry's content fields. */
export function entryHash(prevHash: string, content: AuditEntryContent): string {
  const fields = {
    eventId: content.eventId,
    topic: content.topic,
    type: content.type,
    stream: content.stream,
    tool: content.tool,
    version: content.version,
    principal: content.principal,
    outcome: content.outcome,
    occurredAt: content.occurredAt,
    payload: content.payload,
  };
  return createHash('sha256').update(prevHash).update(canonicalJson(fields)).digest('hex');
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
    const linked = link.prevHash === this.expectedPrev && entryHash(link.prevHash, link) === link.hash;
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
