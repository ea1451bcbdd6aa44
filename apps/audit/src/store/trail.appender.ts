import { finished } from 'node:stream/promises';
import { setImmediate } from 'node:timers/promises';
import { from as copyFrom } from 'pg-copy-streams';
import type { QueryRunner } from 'typeorm';
import type { AuditEntryContent } from '../domain/audit-entry.mapper';
import { canonicalJson, entryHash } from '../domain/hash-chain';

type Runner = Pick<QueryRunner, 'query' | 'connect'>;

/** The part of node-postgres's client a COPY needs: it takes the copy stream as its query. */
interface CopyClient {
  query<T>(stream: T): T;
}

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

/** Entries per COPY: node prepares the next segment while PostgreSQL stores this one (measured with bench/ingest.run.ts). */
export const SEGMENT_SIZE = 1000;

/** A segment's entries with their canonical payloads: the CPU work that needs no database. */
interface Prepared {
  contents: AuditEntryContent[];
  payloads: string[];
}

/** A segment linked to the chain: the fresh entries, their hashes from `from`, and their rows as COPY text. */
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
 * nothing a verifier computes. The unique event id is the dedupe's last word: an entry that slipped
 * past the lookup fails the COPY, and with it the batch, which is retried (never dead-lettered).
 * Returns the event ids appended, in chain order (empty when every event was already recorded).
 */
export function appendChained(runner: Runner, contents: AuditEntryContent[], options: { notify: boolean; segmentSize?: number }): Promise<string[]> {
  return appendSegments(runner, segmentsOf(contents, options.segmentSize).map((segment) => () => segment), options);
}

/**
 * Splits a batch into segments of `size`, the last one a quarter of that: node prepares each
 * segment while PostgreSQL stores the one before, so the last COPY is the only one node waits
 * for with nothing to do, and a small one keeps that wait short.
 */
export function segmentsOf<T>(items: T[], size = SEGMENT_SIZE): T[][] {
  const tail = Math.max(1, Math.floor(size / 4));
  const cut = items.length > size ? items.length - tail : items.length;
  const out: T[][] = [];
  for (let at = 0; at < cut; at += size) out.push(items.slice(at, Math.min(at + size, cut)));
  if (cut < items.length) out.push(items.slice(cut));
  return out;
}

/**
 * appendChained over segments that are produced on demand (the consumer parses messages in
 * them), pipelined on the transaction's one connection: while PostgreSQL copies segment k in,
 * node prepares segment k+1 and hashes it from segment k's last hash, which is known in memory
 * before k's COPY is sent. Those hashes are speculative only about duplicates: when the
 * lookup of k+1's event ids finds one already in the trail, k+1 is hashed again without it.
 * A failed COPY fails the whole call, and the transaction with it, so nothing precomputed outlives it.
 */
export async function appendSegments(runner: Runner, segments: Array<() => AuditEntryContent[]>, options: { notify: boolean }): Promise<string[]> {
  if (segments.length === 0) return [];
  const client = (await runner.connect()) as CopyClient;
  const head = quietly(runner.query(`SELECT hash FROM audit.chain_head WHERE id = 1 FOR UPDATE`) as Promise<Array<{ hash: string }>>);
  let next = prepare(segments[0]());
  let nextKnown = quietly(knownIds(runner, next.contents));
  const seen = new Set<string>();
  let prev = (await head)[0].hash;
  let linked = link(next, new Set(), seen, prev);
  const appended: string[] = [];
  for (let k = 0; ; k += 1) {
    const known = await nextKnown;
    // Hashed before the lookup answered: an event found already recorded takes no link, so the segment is hashed again.
    if (known.size > 0 && linked.fresh.some((c) => known.has(c.eventId))) {
      for (const c of linked.fresh) seen.delete(c.eventId);
      linked = link(next, known, seen, linked.from);
    }
    const current = linked;
    prev = current.last;
    const copied = current.fresh.length > 0 ? quietly(copyRows(client, current.rows)) : undefined;
    if (k + 1 < segments.length) {
      // The COPY's rows go out once PostgreSQL answers it; let that happen before node gets busy.
      if (copied !== undefined) await setImmediate();
      // Node's share of segment k+1 while PostgreSQL stores segment k.
      next = prepare(segments[k + 1]());
      nextKnown = quietly(knownIds(runner, next.contents));
      linked = link(next, new Set(), seen, prev);
    }
    if (copied !== undefined) appended.push(...checked(await copied, current.fresh));
    if (k + 1 >= segments.length) break;
  }
  if (appended.length === 0) return [];
  // The rows took their seq in COPY order, on this session's sequence: the last one drawn is the head's.
  // The signal (delivered at commit) goes in the same statement: one round trip less per batch.
  await runner.query(
    `WITH head AS (UPDATE audit.chain_head SET last_seq = currval(pg_get_serial_sequence('audit.entries', 'seq')), hash = $1 WHERE id = 1 RETURNING last_seq)
     SELECT CASE WHEN $2::text IS NULL THEN NULL ELSE pg_notify($2, last_seq::text) END FROM head`,
    [prev, options.notify ? AUDIT_APPENDED_CHANNEL : null],
  );
  return appended;
}

function prepare(contents: AuditEntryContent[]): Prepared {
  // The canonical payload is hashed and stored: one serialization, and verify reads back the same value.
  return { contents, payloads: contents.map((c) => canonicalJson(c.payload)) };
}

/** Leaves out what is recorded (`known`) or taken earlier in this batch (`seen`, which takes the fresh ones), and hashes the rest from `from`. */
function link(segment: Prepared, known: Set<string>, seen: Set<string>, from: string): Linked {
  const fresh: AuditEntryContent[] = [];
  let rows = '';
  let prev = from;
  segment.contents.forEach((c, i) => {
    if (known.has(c.eventId) || seen.has(c.eventId)) return;
    seen.add(c.eventId);
    const payload = segment.payloads[i];
    const hash = entryHash(prev, c, payload);
    fresh.push(c);
    rows += `${field(c.eventId)}\t${field(c.topic)}\t${field(c.type)}\t${field(c.stream)}\t${field(c.tool)}\t${field(c.version)}\t${field(c.principal)}\t`
      + `${field(c.outcome)}\t${field(c.occurredAt)}\t${jsonField(payload)}\t${prev}\t${hash}\n`;
    prev = hash;
  });
  return { from, fresh, last: prev, rows };
}

const SPECIAL = /[\\\n\r\t]/;
const SPECIALS = /[\\\n\r\t]/g;
const ESCAPED: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** A column in COPY's text format: backslash, tab and line breaks escaped, null as \N. */
function field(value: string | null): string {
  if (value === null) return '\\N';
  return SPECIAL.test(value) ? value.replace(SPECIALS, (ch) => ESCAPED[ch]) : value;
}

/** field() for JSON text, which holds no raw tab or line break: only its backslashes are doubled. */
function jsonField(json: string): string {
  return json.includes('\\') ? json.replaceAll('\\', '\\\\') : json;
}

async function knownIds(runner: Runner, contents: AuditEntryContent[]): Promise<Set<string>> {
  if (contents.length === 0) return new Set();
  const known: Array<{ event_id: string }> = await runner.query(`SELECT event_id FROM audit.entries WHERE event_id = ANY($1::text[])`, [contents.map((c) => c.eventId)]);
  return new Set(known.map((k) => k.event_id));
}

/**
 * COPY rather than INSERT: PostgreSQL parses the text format with the least work per row, and
 * appends the rows in the order given, so seq follows the chain. Queued on the connection at once,
 * behind what was sent before it.
 */
async function copyRows(client: CopyClient, rows: string): Promise<number> {
  const stream = client.query(copyFrom(`COPY audit.entries (${COLUMNS}) FROM STDIN`));
  stream.end(rows);
  await finished(stream);
  return stream.rowCount;
}

function checked(copied: number, fresh: AuditEntryContent[]): string[] {
  if (copied !== fresh.length) throw new ChainSegmentConflict(`appended ${copied} of ${fresh.length} entries; the batch is retried`);
  return fresh.map((c) => c.eventId);
}

/** A query sent ahead and awaited later: its failure is seen where it is awaited, or (after an earlier failure) not at all. */
function quietly<T>(pending: Promise<T>): Promise<T> {
  pending.catch(() => undefined);
  return pending;
}
