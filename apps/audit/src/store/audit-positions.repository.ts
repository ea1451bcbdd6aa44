import type { DataSource, QueryRunner } from 'typeorm';
import type { PositionStore, StoredPosition } from '@estate/platform';
import { AuditPositionEntity } from './audit-position.entity';

/**
 * The trail consumers' positions, written in the transaction that appends their batch: a crash
 * keeps both or neither, and a redelivered batch is also deduped by event id.
 */
export class AuditPositions implements PositionStore {
  constructor(private readonly db: DataSource) {}

  async get(topic: string, partition: number): Promise<StoredPosition | undefined> {
    const row = await this.db.manager.findOneBy(AuditPositionEntity, { topic, partition });
    return row ? { next: row.nextOffset, lastEventId: row.lastEventId } : undefined;
  }

  /** Once per batch: plain SQL, since building TypeORM's upsert cost more CPU than PostgreSQL's running it. */
  async set(runner: Pick<QueryRunner, 'manager'>, topic: string, partition: number, position: StoredPosition): Promise<void> {
    await runner.manager.query(SET_POSITION, [topic, partition, position.next, position.lastEventId]);
  }
}

const SET_POSITION = `INSERT INTO audit.positions (topic, partition, next_offset, last_event_id) VALUES ($1, $2, $3, $4)
  ON CONFLICT (topic, partition) DO UPDATE SET next_offset = EXCLUDED.next_offset, last_event_id = EXCLUDED.last_event_id`;

