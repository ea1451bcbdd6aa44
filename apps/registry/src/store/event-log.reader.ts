import type { DataSource } from 'typeorm';
import type { EventEnvelope } from '@estate/events';
import { RegistryEventEntity } from './event.entity';
import { rowToEnvelope, type LoggedEventRow } from './event.row';

export interface EventPage {
  events: EventEnvelope[];
  /** Where the next page starts (pass it as `after`). */
  next: string;
  /**
   * How many events the store holds in all: only on the first page (`after` = 0). Counting the
   * table is a scan, and a reader that pages through a large store does not need it again per page.
   */
  total?: number;
}

/**
 * Reads the whole event store in append order, a page at a time: what discovery folds when the log
 * is incomplete, and what `estate verify` compares a projection with. Only rows below the oldest
 * running transaction are read, so a page never skips an append that commits late.
 */
export class EventLogReader {
  constructor(private readonly db: DataSource) {}

  async page(after: string, limit: number): Promise<EventPage> {
    // Raw SQL: an xid8 snapshot read (tx_id below pg_snapshot_xmin), which TypeORM cannot say.
    const rows: Array<Omit<LoggedEventRow, 'tx_id' | 'traceparent'>> = await this.db.query(
      `SELECT position, id, stream_id, stream_version, type, version, data, actor, correlation_id, occurred_at
         FROM registry.events
        WHERE position > $1 AND tx_id < pg_snapshot_xmin(pg_current_snapshot())
        ORDER BY position
        LIMIT $2`,
      [after, limit],
    );
    const page: EventPage = { events: rows.map(rowToEnvelope), next: rows.length > 0 ? rows[rows.length - 1].position : after };
    if (BigInt(after) === 0n) page.total = await this.db.manager.count(RegistryEventEntity);
    return page;
  }
}
