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

  async set(runner: Pick<QueryRunner, 'manager'>, topic: string, partition: number, position: StoredPosition): Promise<void> {
    await runner.manager.upsert(AuditPositionEntity, { topic, partition, nextOffset: position.next, lastEventId: position.lastEventId }, ['topic', 'partition']);
  }
}
