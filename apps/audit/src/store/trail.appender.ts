import type { QueryRunner } from 'typeorm';
import type { AuditEntryContent } from '../domain/audit-entry.mapper';
import { entryHash } from '../domain/hash-chain';

type Runner = Pick<QueryRunner, 'query'>;

/** Signalled at commit when registry events join the trail; wakes the event streams. */
export const AUDIT_APPENDED_CHANNEL = 'estate_audit_appended';

/** A batch could not be appended as one chain segment; thrown so the whole batch is retried, never dead-lettered. */
export class ChainSegmentConflict extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ChainSegmentConflict';
  }
}

/**
 * Appends a batch of entries to the hash chain inside the caller's transaction, in one INSERT.
 * The chain head's row lock serializes appends across every audit instance, so the events already
 * in the trail are known while it is held: those (and repeats within the batch) are left out
 * before hashing, because a duplicate must not take a link. Each entry's hash covers its
 * predecessor's exactly as a one-by-one append would, so where batches begin and end changes
 * nothing a verifier computes. `ON CONFLICT (event_id) DO NOTHING` in the same statement is the
 * dedupe's last word; a row it drops would leave a gap in the segment, so that fails the batch.
 * Returns the seq of each appended entry in order (empty when every event was already recorded).
 */
export async function appendChained(runner: Runner, contents: AuditEntryContent[], options: { notify: boolean }): Promise<number[]> {
  if (contents.length === 0) return [];
  const [head]: Array<{ hash: string }> = await runner.query(`SELECT hash FROM audit.chain_head WHERE id = 1 FOR UPDATE`);
  const known: Array<{ event_id: string }> = await runner.query(
    `SELECT event_id FROM audit.entries WHERE event_id = ANY($1::text[])`, [contents.map((c) => c.eventId)],
  );
  const seen = new Set(known.map((k) => k.event_id));
  const fresh = contents.filter((c) => !seen.has(c.eventId) && (seen.add(c.eventId), true));
  if (fresh.length === 0) return [];
  let prev = head.hash;
  const links = fresh.map((content) => {
    const hash = entryHash(prev, content);
    const link = { content, prevHash: prev, hash };
    prev = hash;
    return link;
  });
  const column = <T>(pick: (l: (typeof links)[number]) => T): T[] => links.map(pick);
  // WITH ORDINALITY + ORDER BY: seq values are drawn in the chain's order.
  const inserted: Array<{ seq: string; event_id: string }> = await runner.query(
    `INSERT INTO audit.entries (event_id, topic, type, stream, tool, version, principal, outcome, occurred_at, payload, prev_hash, hash)
     SELECT r.event_id, r.topic, r.type, r.stream, r.tool, r.version, r.principal, r.outcome, r.occurred_at, r.payload, r.prev_hash, r.hash
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::timestamptz[], $10::text[], $11::text[], $12::text[])
            WITH ORDINALITY AS r(event_id, topic, type, stream, tool, version, principal, outcome, occurred_at, payload, prev_hash, hash, i)
      ORDER BY r.i
     ON CONFLICT (event_id) DO NOTHING
     RETURNING seq, event_id`,
    [
      column((l) => l.content.eventId), column((l) => l.content.topic), column((l) => l.content.type), column((l) => l.content.stream),
      column((l) => l.content.tool), column((l) => l.content.version), column((l) => l.content.principal), column((l) => l.content.outcome),
      column((l) => l.content.occurredAt), column((l) => JSON.stringify(l.content.payload)), column((l) => l.prevHash), column((l) => l.hash),
    ],
  );
  const order = inserted.map((r) => ({ seq: Number(r.seq), id: r.event_id })).sort((a, b) => a.seq - b.seq);
  if (order.length !== links.length || order.some((r, i) => r.id !== links[i].content.eventId)) {
    throw new ChainSegmentConflict(`appended ${order.length} of ${links.length} entries, or out of chain order; the batch is retried`);
  }
  const lastSeq = order[order.length - 1].seq;
  await runner.query(`UPDATE audit.chain_head SET last_seq = $1, hash = $2 WHERE id = 1`, [lastSeq, prev]);
  if (options.notify) await runner.query(`SELECT pg_notify($1, $2)`, [AUDIT_APPENDED_CHANNEL, String(lastSeq)]);
  return order.map((r) => r.seq);
}
