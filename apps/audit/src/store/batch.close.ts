import type { StoredPosition } from '@estate/platform';
import type { QueryRunner } from 'typeorm';

/** Signalled at commit when registry events join the trail; wakes the event streams. */
export const AUDIT_APPENDED_CHANNEL = 'estate_audit_appended';

/** What a consumer's batch writes besides its entries: the ledger's count of handled offsets, and its position. */
export interface BatchBookkeeping {
  topic: string;
  partition: number;
  /** Every offset the batch handled (recorded, already recorded or dead-lettered), distinct; never empty. */
  offsets: string[];
  /** Where the consumer stands once the batch commits. */
  position: StoredPosition;
}

/** The chain's new head, or null when the batch appended nothing (every event was already recorded). */
export interface ClosingHead {
  hash: string | null;
  notify: boolean;
}

/**
 * Entries as column arrays, in chain order: event_id, topic, type, stream, tool, version, principal,
 * outcome, occurred_at, payload, prev_hash, hash.
 */
export type EntryColumns = [
  string[], string[], string[], string[], Array<string | null>, Array<string | null>, string[], Array<string | null>, string[], string[], string[], string[],
];

const COLUMN_TYPES = ['text', 'text', 'text', 'text', 'text', 'text', 'text', 'text', 'timestamptz', 'text', 'text', 'text'];
/** The columns an append writes, in the order COPY rows and EntryColumns hold them. */
export const ENTRY_COLUMNS = 'event_id, topic, type, stream, tool, version, principal, outcome, occurred_at, payload, prev_hash, hash';

type Runner = Pick<QueryRunner, 'connect'>;

/** node-postgres's client: a named statement is parsed and planned once per connection, then only bound and run. */
interface NamedQueryClient {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: Array<{ appended: number }> }>;
}

/** One statement's parameters, numbered as they are added. */
class Parameters {
  readonly values: unknown[] = [];

  add(value: unknown, type: string): string {
    this.values.push(value);
    return `$${this.values.length}::${type}`;
  }
}

/**
 * The batch's last statement: the chain head, with a consumer's batch its ledger and position,
 * and with a small batch its entries too (`rows`). One statement rather than up to four, since
 * each round trip costs a batch more than its rows do; data-modifying CTEs all run to completion
 * whether or not the final SELECT reads them. Returns how many entries it appended.
 */
export async function closeBatch(runner: Runner, head: ClosingHead, bookkeeping?: BatchBookkeeping, rows?: EntryColumns): Promise<number> {
  if (head.hash === null && bookkeeping === undefined) return 0;
  const p = new Parameters();
  const inserting = rows !== undefined && rows[0].length > 0 ? rows : undefined;
  const ctes = inserting ? [appendedCte(p, inserting)] : [];
  // The rows took their seq in insertion order: the last one drawn is the head's. Guarded by the hash, so a batch
  // that appended nothing reads no currval (the session may have none).
  const lastSeq = inserting ? '(SELECT max(seq) FROM appended)' : "currval(pg_get_serial_sequence('audit.entries', 'seq'))";
  const hash = p.add(head.hash, 'text');
  ctes.push(`head AS (UPDATE audit.chain_head SET last_seq = ${lastSeq}, hash = ${hash} WHERE id = 1 AND ${hash} IS NOT NULL RETURNING last_seq)`);
  if (bookkeeping !== undefined) ctes.push(...bookkeepingCtes(p, bookkeeping));
  // The signal is delivered at commit, and only when the head moved.
  const channel = p.add(head.notify ? AUDIT_APPENDED_CHANNEL : null, 'text');
  const text = `WITH ${ctes.join(', ')} SELECT ${inserting ? '(SELECT count(*) FROM appended)::int' : '0'} AS appended,
      (SELECT CASE WHEN ${channel} IS NULL THEN NULL ELSE pg_notify(${channel}, last_seq::text) END FROM head)`;
  // Named by its shape (the text depends on nothing else): planning the statement cost PostgreSQL more than running it.
  const client = (await runner.connect()) as NamedQueryClient;
  const { rows: [row] } = await client.query({ name: `audit_close_${inserting ? 'rows_' : ''}${bookkeeping ? 'books' : 'head'}`, text, values: p.values });
  return row.appended;
}

/** The entries in chain order: ordinality orders the insert, and with it the seq each row draws. */
function appendedCte(p: Parameters, rows: EntryColumns): string {
  const arrays = rows.map((column, i) => p.add(column, `${COLUMN_TYPES[i]}[]`)).join(', ');
  return `appended AS (INSERT INTO audit.entries (${ENTRY_COLUMNS})
    SELECT ${ENTRY_COLUMNS} FROM unnest(${arrays}) WITH ORDINALITY AS r(${ENTRY_COLUMNS}, n) ORDER BY n RETURNING seq)`;
}

/**
 * The ledger counts an offset once: a redelivery below the next expected offset adds nothing, so
 * `next_offset - first_offset - handled` is the number of messages passed over without a trace.
 */
function bookkeepingCtes(p: Parameters, { topic, partition, offsets, position }: BatchBookkeeping): string[] {
  const [t, n, o] = [p.add(topic, 'text'), p.add(partition, 'int'), p.add(offsets, 'bigint[]')];
  return [
    `consumed AS (INSERT INTO audit.consumed AS c (topic, partition, first_offset, next_offset, handled)
      SELECT ${t}, ${n}, min(o), max(o) + 1, count(*) FROM unnest(${o}) AS o
      ON CONFLICT (topic, partition) DO UPDATE SET
        handled = c.handled + (SELECT count(*) FROM unnest(${o}) AS o WHERE o >= c.next_offset OR o < c.first_offset),
        next_offset = GREATEST(c.next_offset, EXCLUDED.next_offset),
        first_offset = LEAST(c.first_offset, EXCLUDED.first_offset))`,
    `position AS (INSERT INTO audit.positions (topic, partition, next_offset, last_event_id)
      VALUES (${t}, ${n}, ${p.add(position.next, 'bigint')}, ${p.add(position.lastEventId, 'text')})
      ON CONFLICT (topic, partition) DO UPDATE SET next_offset = EXCLUDED.next_offset, last_event_id = EXCLUDED.last_event_id)`,
  ];
}
