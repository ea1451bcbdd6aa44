import { pgPool } from '@estate/platform';
import type { DataSource } from 'typeorm';
import type { LoggedEventRow } from './event.row';

/** Events per read (and at most per send). */
export const RELAY_BATCH = 500;

export interface RelayBatch {
  rows: LoggedEventRow[];
  /** Whether the rows are every event readable past the checkpoint: neither the count nor the bytes cut the read short. */
  complete: boolean;
  /**
   * Whether events committed past the checkpoint that this read could not see: an older
   * transaction (of any writer in this cluster) still runs, and its end sends no NOTIFY.
   */
  heldBack: boolean;
}

/*
 * Raw SQL and named (parsed and planned once per connection): an xid8 snapshot read (tx_id below
 * pg_snapshot_xmin) with a window sum for the batch's bytes and a window count of the rows read
 * before the byte limit applied. The held-back question rides along in the same snapshot, on a row
 * of its own that the LEFT JOIN keeps when no event is readable.
 */
const READ_BATCH = {
  name: 'registry-relay-read',
  text: `SELECT w.position, w.tx_id, w.id, w.stream_id, w.stream_version, w.type, w.version, w.data, w.actor, w.correlation_id,
                w.occurred_at, w.traceparent, w.fetched, h.held_back
           FROM (SELECT EXISTS (SELECT 1 FROM registry.events e, registry.relay_checkpoint c
                                 WHERE c.relay = $1 AND (e.tx_id, e.position) > (c.tx_id, c.position)
                                   AND e.tx_id >= pg_snapshot_xmin(pg_current_snapshot())) AS held_back) h
           LEFT JOIN (SELECT n.*, sum(octet_length(n.data::text)) OVER (ORDER BY n.tx, n.position) - octet_length(n.data::text) AS before,
                             count(*) OVER ()::int AS fetched
                        FROM (SELECT e.position, e.tx_id::text AS tx_id, e.tx_id AS tx, e.id, e.stream_id, e.stream_version, e.type,
                                     e.version, e.data, e.actor, e.correlation_id, e.occurred_at, e.traceparent
                                FROM registry.events e, registry.relay_checkpoint c
                               WHERE c.relay = $1
                                 AND (e.tx_id, e.position) > (c.tx_id, c.position)
                                 AND e.tx_id < pg_snapshot_xmin(pg_current_snapshot())
                               ORDER BY e.tx_id, e.position
                               LIMIT ${RELAY_BATCH}) n) w ON w.before < $2
          ORDER BY w.tx, w.position`,
};

type ReadRow = { [K in keyof LoggedEventRow]: LoggedEventRow[K] | null } & { fetched: number | null; held_back: boolean };

/**
 * The next events after the relay's checkpoint in commit order: at most RELAY_BATCH of them, and
 * about `maxBytes` (at least one event). Only rows whose transaction is older than every
 * transaction still running: a row that commits late can never land behind the checkpoint.
 */
export async function readRelayBatch(db: DataSource, relay: string, maxBytes: number): Promise<RelayBatch> {
  const pool = pgPool(db);
  const { rows } = await pool.query<ReadRow>({ ...READ_BATCH, values: [relay, maxBytes] });
  const events = rows.filter((row) => row.id !== null) as LoggedEventRow[];
  const fetched = rows[0]?.fetched ?? 0;
  return { rows: events, complete: fetched < RELAY_BATCH && events.length === fetched, heldBack: rows[0]?.held_back === true };
}
