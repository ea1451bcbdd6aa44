import type { DataSource } from 'typeorm';
import type { StoredPosition } from '@estate/platform';
import { AuditPositionEntity } from './audit-position.entity';

/**
 * The trail consumers' positions. Written after each entry, outside the entry's transaction: a
 * crash between the two only re-reads one message, which the event id dedupes.
 */
export class AuditPositions {
  constructor(private readonly db: DataSource) {}

  async get(topic: string, partition: number): Promise<StoredPosition | undefined> {
    const row = await this.db.manager.findOneBy(AuditPositionEntity, { topic, partition });
    return row ? { next: row.nextOffset, lastEventId: row.lastEventId } : undefined;
  }

  async set(topic: string, partition: number, position: StoredPosition): Promise<void> {
    await this.db.manager.upsert(AuditPositionEntity, { topic, partition, nextOffset: position.next, lastEventId: position.lastEventId }, ['topic', 'partition']);
  }
}
