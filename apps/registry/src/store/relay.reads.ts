import type { DataSource } from 'typeorm';
import type { LoggedEventRow } from './event.row';

/** Events per read (and at most per send). */
export const RELAY_BATCH = 500;

/**
 * The next events after the relay's checkpoint in commit order: at most RELAY_BATCH of them, and
 * about `maxBytes` (at least one event). Only rows whose transaction is older than every
 * transaction still running: a row that commits late can never land behind the checkpoint.
 */
export function readRelayBatch(db: DataSource, relay: string, maxBytes: number): Promise<LoggedEventRow[]> {
  // Raw SQL: an xid8 snapshot read (tx_id below pg_snapshot_xmin) with a window sum for the batch's bytes.
  return db.query(
    `SELECT position, tx_id, id, stream_id, stream_version, type, version, data, actor, correlation_id, occurred_at, traceparent
       FROM (SELECT n.*, sum(octet_length(n.data::text)) OVER (ORDER BY n.tx, n.position) - octet_length(n.data::text) AS before
               FROM (SELECT e.position, e.tx_id::text AS tx_id, e.tx_id AS tx, e.id, e.stream_id, e.stream_version, e.type,
                            e.version, e.data, e.actor, e.correlation_id, e.occurred_at, e.traceparent
                       FROM registry.events e, registry.relay_checkpoint c
                      WHERE c.relay = $1
                        AND (e.tx_id, e.position) > (c.tx_id, c.position)
                        AND e.tx_id < pg_snapshot_xmin(pg_current_snapshot())
                      ORDER BY e.tx_id, e.position
                      LIMIT ${RELAY_BATCH}) n) w
      WHERE before < $2
      ORDER BY tx, position`,
    [relay, maxBytes],
  );
}

/**
 * Whether events committed past the checkpoint that readRelayBatch could not see yet: an older
 * transaction (of any writer in this cluster) still runs, and its end sends no NOTIFY.
 */
export async function relayHeldBack(db: DataSource, relay: string): Promise<boolean> {
  // Raw SQL: the same (xid8, bigint) row comparison as readRelayBatch, without its snapshot bound.
  const [row] = await db.query<Array<{ waiting: boolean }>>(
    `SELECT EXISTS (SELECT 1 FROM registry.events e, registry.relay_checkpoint c
                     WHERE c.relay = $1 AND (e.tx_id, e.position) > (c.tx_id, c.position)) AS waiting`,
    [relay],
  );
  return row?.waiting === true;
}
