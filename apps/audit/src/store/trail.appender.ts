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

/** Entries per write of a batch's COPY: node prepares the next segment while PostgreSQL stores this one (measured with bench/ingest.run.ts). */
export const SEGMENT_SIZE = 250;

/** A segment's entries with their canonical payloads: the CPU work that needs no database. */
interface Prepared {
  contents: AuditEntryContent[];
  payloads: string[];
}

/** A segment linked to the chain: the fresh entries with their canonical payloads and their hashes from `from`. */
interface Linked {
  from: string;
  fresh: AuditEntryContent[];
  payloads: string[];
  hashes: string[];
  last: string;
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
 * batch is appended again without the event ids one lookup finds, all in the caller's transaction. Either way
 * no duplicate takes a link, and the sequence is set back so seq stays gapless.
 *
 * A segment is made again for that second attempt, so each must give the same entries every time
 * it is called, and act (dead-letter, log) only the first time. Nothing here keeps a made segment:
 * once it is written its entries are garbage, and a batch's thousands of parsed envelopes do not
 * all live until its commit (which made the young generation promote them, costing audit about a
 * tenth of its CPU per record in bench/ingest.quick.ts).
 */
export async function appendSegments(
  runner: Runner, segments: Array<() => AuditEntryContent[]>, options: { notify: boolean; bookkeeping?: BatchBookkeeping },
): Promise<string[]> {
  if (segments.length === 0 && options.bookkeeping === undefined) return [];
  const client = (await runner.connect()) as PgClient;
  const [locked] = await client.query(`SELECT hash FROM audit.chain_head WHERE id = 1 FOR UPDATE; SAVEPOINT ${UNCHECKED}`);
  const from = locked.rows[0].hash as string;
  try {
    return await appendFrom(runner, segments, from, NONE_KNOWN, options);
  } catch (error) {
    if (!isRecordedEvent(error)) throw error;
    await client.query(`ROLLBACK TO SAVEPOINT ${UNCHECKED}; ${RESET_SEQUENCE}`);
    return appendFrom(runner, segments, from, await knownIds(runner, segments.flatMap((segment) => segment())), options);
  }
}

/**
 * Entries a batch of one segment may hold and still go as parameters of its closing statement:
 * a COPY costs a small batch two more writes and a round trip, which is most of what it costs.
 */
export const INLINE_MAX = 200;

/**
 * The batch hashed from `from`, leaving out the events `known` to be recorded, and appended: a
 * small one in its closing statement, a larger one as one COPY stream, then closed.
 */
async function appendFrom(
  runner: Runner, segments: Array<() => AuditEntryContent[]>, from: string, known: ReadonlySet<string>, options: { notify: boolean; bookkeeping?: BatchBookkeeping },
): Promise<string[]> {
  const only = segments.length === 1 ? segments[0]() : undefined;
  if (only !== undefined && only.length <= INLINE_MAX) {
    const linked = link(prepare(only), known, new Set(), from);
    const head = { hash: linked.fresh.length > 0 ? linked.last : null, notify: options.notify };
    return checked(await closeBatch(runner, head, options.bookkeeping, columnsOf(linked)), linked.fresh);
  }
  const chained = await streamSegments((await runner.connect()) as PgClient, only === undefined ? segments : [() => only], from, known);
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
 * The batch as one COPY whose rows are written a segment at a time: after each write node yields,
 * so the socket takes the rows and PostgreSQL stores them while node parses and hashes the next
 * segment. One statement and one round trip for the whole batch, and the two processes work side
 * by side instead of in turn. COPY rather than INSERT: PostgreSQL parses its text format with the
 * least work per row, and appends the rows in the order given, so seq follows the chain. A refused
 * row (an event already recorded) fails the COPY; nothing more is written once it has, and the
 * caller starts over with the recorded events known.
 */
async function streamSegments(client: PgClient, segments: Array<() => AuditEntryContent[]>, from: string, known: ReadonlySet<string>): Promise<Chained> {
  const appended: string[] = [];
  const seen = new Set<string>();
  let copy: { stream: ReturnType<typeof copyFrom>; done: Promise<void>; failed: boolean } | undefined;
  let prev = from;
  for (const segment of segments) {
    if (copy?.failed) break;
    const linked = link(prepare(segment()), known, seen, prev);
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
    copy.stream.write(copyText(linked));
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

function prepare(contents: AuditEntryContent[]): Prepared {
  // The canonical payload is hashed and stored: one serialization, and verify reads back the same value.
  return { contents, payloads: contents.map((c) => canonicalJson(c.payload)) };
}

/** Leaves out what is recorded (`known`) or taken earlier in this batch (`seen`, which takes the fresh ones), and hashes the rest from `from`. */
function link(segment: Prepared, known: ReadonlySet<string>, seen: Set<string>, from: string): Linked {
  const fresh: AuditEntryContent[] = [];
  const payloads: string[] = [];
  const hashes: string[] = [];
  let prev = from;
  segment.contents.forEach((c, i) => {
    if (known.has(c.eventId) || seen.has(c.eventId)) return;
    seen.add(c.eventId);
    const payload = segment.payloads[i];
    const hash = entryHash(prev, c, payload);
    fresh.push(c);
    payloads.push(payload);
    hashes.push(hash);
    prev = hash;
  });
  return { from, fresh, payloads, hashes, last: prev };
}

/** A linked segment's rows in COPY's text format. */
function copyText({ from, fresh, payloads, hashes }: Linked): string {
  let rows = '';
  fresh.forEach((c, i) => {
    rows += `${field(c.eventId)}\t${field(c.topic)}\t${field(c.type)}\t${field(c.stream)}\t${field(c.tool)}\t${field(c.version)}\t${field(c.principal)}\t`
      + `${field(c.outcome)}\t${field(c.occurredAt)}\t${jsonField(payloads[i])}\t${i === 0 ? from : hashes[i - 1]}\t${hashes[i]}\n`;
  });
  return rows;
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

/** Which of these event ids the trail already holds. */
async function knownIds(runner: Runner, contents: AuditEntryContent[]): Promise<Set<string>> {
  if (contents.length === 0) return new Set();
  const known: Array<{ event_id: string }> = await runner.query(`SELECT event_id FROM audit.entries WHERE event_id = ANY($1::text[])`, [contents.map((c) => c.eventId)]);
  return new Set(known.map((k) => k.event_id));
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
