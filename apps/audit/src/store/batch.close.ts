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

type Runner = Pick<QueryRunner, 'query'>;

// The rows took their seq in COPY order, on this session's sequence: the last one drawn is the head's.
// Guarded by the hash, so a batch that appended nothing reads no currval (the session may have none).
const HEAD = `head AS (
  UPDATE audit.chain_head SET last_seq = currval(pg_get_serial_sequence('audit.entries', 'seq')), hash = $1
  WHERE id = 1 AND $1::text IS NOT NULL RETURNING last_seq)`;
// The signal is delivered at commit, and only when the head moved.
const NOTIFY = `SELECT CASE WHEN $2::text IS NULL THEN NULL ELSE pg_notify($2, last_seq::text) END FROM head`;

/**
 * The ledger counts an offset once: a redelivery below the next expected offset adds nothing, so
 * `next_offset - first_offset - handled` is the number of messages passed over without a trace.
 */
const LEDGER = `consumed AS (
  INSERT INTO audit.consumed AS c (topic, partition, first_offset, next_offset, handled)
  SELECT $3, $4, min(o), max(o) + 1, count(*) FROM unnest($5::bigint[]) AS o
  ON CONFLICT (topic, partition) DO UPDATE SET
    handled = c.handled + (SELECT count(*) FROM unnest($5::bigint[]) AS o WHERE o >= c.next_offset OR o < c.first_offset),
    next_offset = GREATEST(c.next_offset, EXCLUDED.next_offset),
    first_offset = LEAST(c.first_offset, EXCLUDED.first_offset))`;
const POSITION = `position AS (
  INSERT INTO audit.positions (topic, partition, next_offset, last_event_id) VALUES ($3, $4, $6, $7)
  ON CONFLICT (topic, partition) DO UPDATE SET next_offset = EXCLUDED.next_offset, last_event_id = EXCLUDED.last_event_id)`;

/**
 * The batch's last statement: the chain head, and with a consumer's batch its ledger and position
 * too. One statement rather than three, since each round trip costs a batch more than the rows do;
 * data-modifying CTEs all run to completion whether or not the final SELECT reads them.
 */
export async function closeBatch(runner: Runner, head: ClosingHead, bookkeeping?: BatchBookkeeping): Promise<void> {
  const channel = head.notify ? AUDIT_APPENDED_CHANNEL : null;
  if (bookkeeping === undefined) {
    if (head.hash !== null) await runner.query(`WITH ${HEAD} ${NOTIFY}`, [head.hash, channel]);
    return;
  }
  const { topic, partition, offsets, position } = bookkeeping;
  await runner.query(`WITH ${HEAD}, ${LEDGER}, ${POSITION} ${NOTIFY}`, [head.hash, channel, topic, partition, offsets, position.next, position.lastEventId]);
}
