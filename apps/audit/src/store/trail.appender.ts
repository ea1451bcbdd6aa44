import { setImmediate } from 'node:timers/promises';
import type { QueryRunner } from 'typeorm';
import type { AuditEntryContent } from '../domain/audit-entry.mapper';
import { canonicalJson, entryHash } from '../domain/hash-chain';

type Runner = Pick<QueryRunner, 'query'>;

/** Signalled at commit when registry events join the trail; wakes the event streams. */
export const AUDIT_APPENDED_CHANNEL = 'estate_audit_appended';

const COLUMNS = 'event_id, topic, type, stream, tool, version, principal, outcome, occurred_at, payload, prev_hash, hash';

/** A batch could not be appended as one chain segment; thrown so the whole batch is retried, never dead-lettered. */
export class ChainSegmentConflict extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ChainSegmentConflict';
  }
}

/** Entries per INSERT: node prepares the next segment while PostgreSQL inserts this one (measured with bench/ingest.run.ts). */
export const SEGMENT_SIZE = 1000;

/** A segment's entries with their canonical payloads: the CPU work that needs no database. */
interface Prepared {
  contents: AuditEntryContent[];
  payloads: string[];
}

/** A segment linked to the chain: the fresh entries, their hashes from `from`, and the INSERT's parameter. */
interface Linked {
  from: string;
  fresh: AuditEntryContent[];
  last: string;
  rows: string;
}

/**
 * Appends a batch of entries to the hash chain inside the caller's transaction.
 * The chain head's row lock serializes appends across every audit instance, so the events already
 * in the trail are known while it is held: those (and repeats within the batch) are left out
 * before hashing, because a duplicate must not take a link. Each entry's hash covers its
 * predecessor's exactly as a one-by-one append would, so where batches begin and end changes
 * nothing a verifier computes. `ON CONFLICT (event_id) DO NOTHING` in the same statement is the
 * dedupe's last word; a row it drops would leave a gap in the segment, so that fails the batch.
 * Returns the seq and event id of each appended entry in chain order (empty when every event was already recorded).
 */
export function appendChained(runner: Runner, contents: AuditEntryContent[], options: { notify: boolean; segmentSize?: number }): Promise<Array<{ seq: number; eventId: string }>> {
  const size = options.segmentSize ?? SEGMENT_SIZE;
  const segments: Array<() => AuditEntryContent[]> = [];
  for (let at = 0; at < contents.length; at += size) segments.push(() => contents.slice(at, at + size));
  return appendSegments(runner, segments, options);
}

/**
 * appendChained over segments that are produced on demand (the consumer parses messages in
 * them), pipelined on the transaction's one connection: while PostgreSQL inserts segment k,
 * node prepares segment k+1 and hashes it from segment k's last hash, which is known in memory
 * before k's INSERT is sent. Those hashes are speculative only about duplicates: when the
 * lookup of k+1's event ids finds one already in the trail, k+1 is hashed again without it.
 * A failed INSERT fails the whole call, and the transaction with it, so nothing precomputed outlives it.
 */
export async function appendSegments(runner: Runner, segments: Array<() => AuditEntryContent[]>, options: { notify: boolean }): Promise<Array<{ seq: number; eventId: string }>> {
  if (segments.length === 0) return [];
  const head = quietly(runner.query(`SELECT hash FROM audit.chain_head WHERE id = 1 FOR UPDATE`) as Promise<Array<{ hash: string }>>);
  let next = prepare(segments[0]());
  let nextKnown = quietly(knownIds(runner, next.contents));
  const seen = new Set<string>();
  let prev = (await head)[0].hash;
  let linked = link(next, new Set(), seen, prev);
  const appended: Array<{ seq: number; eventId: string }> = [];
  for (let k = 0; ; k += 1) {
    const known = await nextKnown;
    // Hashed before the lookup answered: an event found already recorded takes no link, so the segment is hashed again.
    if (known.size > 0 && linked.fresh.some((c) => known.has(c.eventId))) {
      for (const c of linked.fresh) seen.delete(c.eventId);
      linked = link(next, known, seen, linked.from);
    }
    const current = linked;
    prev = current.last;
    const insert = current.fresh.length > 0 ? quietly(insertRows(runner, current.rows)) : undefined;
    if (k + 1 < segments.length) {
      // The query runner hands the INSERT to the connection a few promise turns later; let it go out before node gets busy.
      if (insert !== undefined) await setImmediate();
      // Node's share of segment k+1 while PostgreSQL inserts segment k.
      next = prepare(segments[k + 1]());
      nextKnown = quietly(knownIds(runner, next.contents));
      linked = link(next, new Set(), seen, prev);
    }
    if (insert !== undefined) appended.push(...checked(await insert, current.fresh));
    if (k + 1 >= segments.length) break;
  }
  if (appended.length === 0) return [];
  const lastSeq = appended[appended.length - 1].seq;
  await runner.query(`UPDATE audit.chain_head SET last_seq = $1, hash = $2 WHERE id = 1`, [lastSeq, prev]);
  if (options.notify) await runner.query(`SELECT pg_notify($1, $2)`, [AUDIT_APPENDED_CHANNEL, String(lastSeq)]);
  return appended;
}

function prepare(contents: AuditEntryContent[]): Prepared {
  // The canonical payload is hashed and stored: one serialization, and verify reads back the same value.
  return { contents, payloads: contents.map((c) => canonicalJson(c.payload)) };
}

/** Leaves out what is recorded (`known`) or taken earlier in this batch (`seen`, which takes the fresh ones), and hashes the rest from `from`. */
function link(segment: Prepared, known: Set<string>, seen: Set<string>, from: string): Linked {
  const fresh: AuditEntryContent[] = [];
  const rows: object[] = [];
  let prev = from;
  segment.contents.forEach((c, i) => {
    if (known.has(c.eventId) || seen.has(c.eventId)) return;
    seen.add(c.eventId);
    const payload = segment.payloads[i];
    const hash = entryHash(prev, c, payload);
    fresh.push(c);
    rows.push({
      event_id: c.eventId, topic: c.topic, type: c.type, stream: c.stream, tool: c.tool, version: c.version, principal: c.principal,
      outcome: c.outcome, occurred_at: c.occurredAt, payload, prev_hash: prev, hash,
    });
    prev = hash;
  });
  // One JSON parameter: PostgreSQL decodes it faster than twelve array literals (measured with bench/ingest.bench.ts).
  return { from, fresh, last: prev, rows: JSON.stringify(rows) };
}

async function knownIds(runner: Runner, contents: AuditEntryContent[]): Promise<Set<string>> {
  if (contents.length === 0) return new Set();
  const known: Array<{ event_id: string }> = await runner.query(`SELECT event_id FROM audit.entries WHERE event_id = ANY($1::text[])`, [contents.map((c) => c.eventId)]);
  return new Set(known.map((k) => k.event_id));
}

function insertRows(runner: Runner, rows: string): Promise<Array<{ seq: string; event_id: string }>> {
  // WITH ORDINALITY + ORDER BY: seq values are drawn in the chain's order.
  return runner.query(
    `INSERT INTO audit.entries (${COLUMNS})
     SELECT ${COLUMNS}
       FROM ROWS FROM (json_to_recordset($1::json) AS (
              event_id text, topic text, type text, stream text, tool text, version text, principal text, outcome text,
              occurred_at timestamptz, payload text, prev_hash text, hash text))
            WITH ORDINALITY AS r(${COLUMNS}, i)
      ORDER BY r.i
     ON CONFLICT (event_id) DO NOTHING
     RETURNING seq, event_id`,
    [rows],
  );
}

function checked(inserted: Array<{ seq: string; event_id: string }>, fresh: AuditEntryContent[]): Array<{ seq: number; eventId: string }> {
  const order = inserted.map((r) => ({ seq: Number(r.seq), eventId: r.event_id })).sort((a, b) => a.seq - b.seq);
  if (order.length !== fresh.length || order.some((r, i) => r.eventId !== fresh[i].eventId)) {
    throw new ChainSegmentConflict(`appended ${order.length} of ${fresh.length} entries, or out of chain order; the batch is retried`);
  }
  return order;
}

/** A query sent ahead and awaited later: its failure is seen where it is awaited, or (after an earlier failure) not at all. */
function quietly<T>(pending: Promise<T>): Promise<T> {
  pending.catch(() => undefined);
  return pending;
}
