import { finished } from 'node:stream/promises';
import { setImmediate } from 'node:timers/promises';
import { from as copyFrom } from 'pg-copy-streams';
import type { QueryRunner } from 'typeorm';
import type { AuditEntryContent } from '../domain/audit-entry.mapper';
import { canonicalJson, entryHash } from '../domain/hash-chain';
import { closeBatch, ENTRY_COLUMNS, type BatchBookkeeping, type EntryColumns } from './batch.close';

type Runner = Pick<QueryRunner, 'query' | 'connect'>;

/** The parts of node-postgres's client the appender uses: a COPY takes its stream as the query; several statements go as one text. */
interface PgClient {
  query(text: string): Promise<Array<{ rows: Array<Record<string, unknown>> }>>;
  query<T extends object>(stream: T): T;
}

export { AUDIT_APPENDED_CHANNEL } from './batch.close';

/** A batch could not be appended as one chain segment; thrown so the whole batch is retried, never dead-lettered. */
export class ChainSegmentConflict extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ChainSegmentConflict';
  }
}

/** Entries per COPY: node prepares the next segment while PostgreSQL stores this one (measured with bench/ingest.run.ts). */
export const SEGMENT_SIZE = 250;

/** A segment's entries with their canonical payloads: the CPU work that needs no database. */
interface Prepared {
  contents: AuditEntryContent[];
  payloads: string[];
}

/** A segment linked to the chain: the fresh entries with their canonical payloads and their hashes from `from`, and their rows as COPY text. */
interface Linked {
  from: string;
  fresh: AuditEntryContent[];
  payloads: string[];
  hashes: string[];
  last: string;
  rows: string;
}

/**
 * Appends a batch of entries to the hash chain inside the caller's transaction.
 * The chain head's row lock serializes appends across every audit instance, so the events already
 * in the trail are known while it is held: those (and repeats within the batch) are left out
 * before hashing, because a duplicate must not take a link. Each entry's hash covers its
 * predecessor's exactly as a one-by-one append would, so where batches begin and end changes
 * nothing a verifier computes. The unique event id is the dedupe's last word (appendSegments says
 * how it stands in for a lookup). Returns the event ids appended, in chain order (empty when every
 * event was already recorded).
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

/** Where the batch's unchecked append begins: rolled back to when it meets an event already recorded. */
const UNCHECKED = 'unchecked_append';

/**
 * appendChained over segments that are produced on demand (the consumer parses messages in
 * them), closed by one statement that moves the chain head and, for a consumer's batch, writes
 * its ledger and position (`bookkeeping`, batch.close.ts).
 *
 * Redelivered events are rare (the consumer drops a batch its position says was applied), so the
 * batch is first appended without looking its event ids up: the unique event id refuses a
 * duplicate, the batch's rows are rolled back to a savepoint taken with the head's lock, and the
 * batch is appended again with a lookup per segment, all in the caller's transaction. Either way
 * no duplicate takes a link, and the sequence is set back so seq stays gapless.
 */
export async function appendSegments(
  runner: Runner, segments: Array<() => AuditEntryContent[]>, options: { notify: boolean; bookkeeping?: BatchBookkeeping },
): Promise<string[]> {
  if (segments.length === 0 && options.bookkeeping === undefined) return [];
  const client = (await runner.connect()) as PgClient;
  // Made once: a second attempt must not parse (and dead-letter) the same messages again.
  const made = segments.map(once);
  const [locked] = await client.query(`SELECT hash FROM audit.chain_head WHERE id = 1 FOR UPDATE; SAVEPOINT ${UNCHECKED}`);
  const from = locked.rows[0].hash as string;
  try {
    return await appendFrom(runner, made, from, undefined, options);
  } catch (error) {
    if (!isRecordedEvent(error)) throw error;
    await client.query(`ROLLBACK TO SAVEPOINT ${UNCHECKED}; ${RESET_SEQUENCE}`);
    return appendFrom(runner, made, from, (contents) => knownIds(runner, contents), options);
  }
}

/**
 * Entries a batch of one segment may hold and still go as parameters of its closing statement:
 * a COPY costs a small batch two more writes and a round trip, which is most of what it costs.
 */
export const INLINE_MAX = 200;

/**
 * The batch hashed from `from` and appended: a small one in its closing statement, a larger one by
 * COPY, then closed. Without `known` (the unchecked append) the whole batch is one COPY stream;
 * with it, one COPY per segment, each after its lookup.
 */
async function appendFrom(
  runner: Runner, segments: Array<() => AuditEntryContent[]>, from: string, known: KnownIds | undefined, options: { notify: boolean; bookkeeping?: BatchBookkeeping },
): Promise<string[]> {
  if (segments.length === 1 && segments[0]().length <= INLINE_MAX) {
    const contents = segments[0]();
    const linked = link(prepare(contents), known ? await known(contents) : new Set(), new Set(), from);
    const head = { hash: linked.fresh.length > 0 ? linked.last : null, notify: options.notify };
    return checked(await closeBatch(runner, head, options.bookkeeping, columnsOf(linked)), linked.fresh);
  }
  const client = (await runner.connect()) as PgClient;
  const chained = known ? await copySegments(client, segments, from, known) : await streamSegments(client, segments, from);
  await closeBatch(runner, { hash: chained.appended.length > 0 ? chained.last : null, notify: options.notify }, options.bookkeeping);
  return chained.appended;
}

// The rolled-back COPYs drew from the sequence, which no rollback returns; the head's lock keeps
// every other append out, so nothing else drew since. max(seq) as well: a row that is not in the
// chain (verify reports it) must not make every later COPY collide with it.
const RESET_SEQUENCE = `SELECT setval(pg_get_serial_sequence('audit.entries', 'seq'), GREATEST(h.last_seq, m.seq, 1), GREATEST(h.last_seq, m.seq) > 0)
  FROM audit.chain_head h, (SELECT coalesce(max(seq), 0) AS seq FROM audit.entries) m WHERE h.id = 1`;

/** The entries a COPY refused because their event id is already in the trail (the unique constraint). */
function isRecordedEvent(error: unknown): boolean {
  const e = error as { code?: unknown; constraint?: unknown } | null;
  return e?.code === '23505' && e.constraint === 'entries_event_id_unique';
}

interface Chained {
  appended: string[];
  last: string;
}

/**
 * The segments pipelined on the transaction's one connection: while PostgreSQL copies segment k
 * in, node prepares segment k+1 and hashes it from segment k's last hash, which is known in memory
 * before k's COPY is sent. With a lookup (`known`), those hashes are speculative only about
 * duplicates: when the lookup of k+1's event ids finds one already in the trail, k+1 is hashed
 * again without it. A failed COPY fails the whole call, so nothing precomputed outlives it.
 */
async function copySegments(client: PgClient, segments: Array<() => AuditEntryContent[]>, from: string, known: KnownIds): Promise<Chained> {
  const appended: string[] = [];
  if (segments.length === 0) return { appended, last: from };
  let next = prepare(segments[0]());
  let nextKnown = quietly(known(next.contents));
  const seen = new Set<string>();
  let prev = from;
  let linked = link(next, new Set(), seen, prev);
  for (let k = 0; ; k += 1) {
    const recorded = await nextKnown;
    // Hashed before the lookup answered: an event found already recorded takes no link, so the segment is hashed again.
    if (recorded.size > 0 && linked.fresh.some((c) => recorded.has(c.eventId))) {
      for (const c of linked.fresh) seen.delete(c.eventId);
      linked = link(next, recorded, seen, linked.from);
    }
    const current = linked;
    prev = current.last;
    const copied = current.fresh.length > 0 ? quietly(copyRows(client, current.rows)) : undefined;
    if (k + 1 < segments.length) {
      // The COPY's rows go out once PostgreSQL answers it; let that happen before node gets busy.
      if (copied !== undefined) await setImmediate();
      // Node's share of segment k+1 while PostgreSQL stores segment k.
      next = prepare(segments[k + 1]());
      nextKnown = quietly(known(next.contents));
      linked = link(next, new Set(), seen, prev);
    }
    if (copied !== undefined) appended.push(...checked(await copied, current.fresh));
    if (k + 1 >= segments.length) return { appended, last: prev };
  }
}

/**
 * The unchecked append as one COPY whose rows are written a segment at a time: after each write
 * node yields, so the socket takes the rows and PostgreSQL stores them while node parses and
 * hashes the next segment. One statement and one round trip for the whole batch, and the two
 * processes work side by side instead of in turn. A refused row (an event already recorded) fails
 * the COPY; nothing more is written once it has, and the caller starts over with lookups.
 */
async function streamSegments(client: PgClient, segments: Array<() => AuditEntryContent[]>, from: string): Promise<Chained> {
  const appended: string[] = [];
  const seen = new Set<string>();
  let copy: { stream: ReturnType<typeof copyFrom>; done: Promise<void>; failed: boolean } | undefined;
  let prev = from;
  for (const segment of segments) {
    if (copy?.failed) break;
    const linked = link(prepare(segment()), NONE_KNOWN, seen, prev);
    prev = linked.last;
    if (linked.fresh.length === 0) continue;
    if (copy === undefined) {
      const stream = client.query(copyFrom(`COPY audit.entries (${ENTRY_COLUMNS}) FROM STDIN`));
      // Listened to at once: PostgreSQL may refuse a row while later segments are still being prepared.
      // (pg-copy-streams emits the error without destroying the stream, and a write after it would throw.)
      const started = { stream, done: quietly(finished(stream)), failed: false };
      stream.once('error', () => { started.failed = true; });
      copy = started;
    }
    copy.stream.write(linked.rows);
    for (const c of linked.fresh) appended.push(c.eventId);
    await setImmediate();
  }
  if (copy === undefined) return { appended, last: prev };
  if (!copy.failed) copy.stream.end();
  await copy.done;
  if (copy.stream.rowCount !== appended.length) throw new ChainSegmentConflict(`appended ${copy.stream.rowCount} of ${appended.length} entries; the batch is retried`);
  return { appended, last: prev };
}

const NONE_KNOWN: ReadonlySet<string> = new Set();

/** Which of a segment's event ids the trail already holds. */
type KnownIds = (contents: AuditEntryContent[]) => Promise<Set<string>>;

function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}

function prepare(contents: AuditEntryContent[]): Prepared {
  // The canonical payload is hashed and stored: one serialization, and verify reads back the same value.
  return { contents, payloads: contents.map((c) => canonicalJson(c.payload)) };
}

/** Leaves out what is recorded (`known`) or taken earlier in this batch (`seen`, which takes the fresh ones), and hashes the rest from `from`. */
function link(segment: Prepared, known: ReadonlySet<string>, seen: Set<string>, from: string): Linked {
  const fresh: AuditEntryContent[] = [];
  const payloads: string[] = [];
  const hashes: string[] = [];
  let rows = '';
  let prev = from;
  segment.contents.forEach((c, i) => {
    if (known.has(c.eventId) || seen.has(c.eventId)) return;
    seen.add(c.eventId);
    const payload = segment.payloads[i];
    const hash = entryHash(prev, c, payload);
    fresh.push(c);
    payloads.push(payload);
    hashes.push(hash);
    rows += `${field(c.eventId)}\t${field(c.topic)}\t${field(c.type)}\t${field(c.stream)}\t${field(c.tool)}\t${field(c.version)}\t${field(c.principal)}\t`
      + `${field(c.outcome)}\t${field(c.occurredAt)}\t${jsonField(payload)}\t${prev}\t${hash}\n`;
    prev = hash;
  });
  return { from, fresh, payloads, hashes, last: prev, rows };
}

/** A linked segment as the closing statement's column arrays (no COPY text escaping: the values go as parameters). */
function columnsOf(linked: Linked): EntryColumns {
  const { fresh } = linked;
  return [
    fresh.map((c) => c.eventId), fresh.map((c) => c.topic), fresh.map((c) => c.type), fresh.map((c) => c.stream), fresh.map((c) => c.tool),
    fresh.map((c) => c.version), fresh.map((c) => c.principal), fresh.map((c) => c.outcome), fresh.map((c) => c.occurredAt), linked.payloads,
    linked.hashes.map((_, i) => (i === 0 ? linked.from : linked.hashes[i - 1])), linked.hashes,
  ];
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
async function copyRows(client: PgClient, rows: string): Promise<number> {
  const stream = client.query(copyFrom(`COPY audit.entries (${ENTRY_COLUMNS}) FROM STDIN`));
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
