import type { DataSource, QueryRunner } from 'typeorm';
import type { PositionStore, StoredPosition } from '@estate/platform';
import { AuditPositionEntity } from './audit-position.entity';

/**
 * The trail consumers' positions, written in the transaction that appends their batch: a crash
 * keeps both or neither, and a redelivered batch is also deduped by event id.
 */
export class AuditPositions implements PositionStore {
  /** Per transaction (a query runner is one transaction's): the position its batch's closing statement already wrote. */
  private readonly writtenIn = new WeakMap<object, string>();

  constructor(private readonly db: DataSource) {}

  /** The batch wrote `position` itself (batch.close.ts): `set` with the same position in the same transaction has nothing left to write. */
  written(runner: object, topic: string, partition: number, position: StoredPosition): void {
    this.writtenIn.set(runner, keyOf(topic, partition, position));
  }

  async get(topic: string, partition: number): Promise<StoredPosition | undefined> {
    const row = await this.db.manager.findOneBy(AuditPositionEntity, { topic, partition });
    return row ? { next: row.nextOffset, lastEventId: row.lastEventId } : undefined;
  }

  /** Once per batch: plain SQL, since building TypeORM's upsert cost more CPU than PostgreSQL's running it. */
  async set(runner: Pick<QueryRunner, 'manager'>, topic: string, partition: number, position: StoredPosition): Promise<void> {
    const written = this.writtenIn.get(runner);
    this.writtenIn.delete(runner);
    if (written === keyOf(topic, partition, position)) return;
    await runner.manager.query(SET_POSITION, [topic, partition, position.next, position.lastEventId]);
  }
}

const SET_POSITION = `INSERT INTO audit.positions (topic, partition, next_offset, last_event_id) VALUES ($1, $2, $3, $4)
  ON CONFLICT (topic, partition) DO UPDATE SET next_offset = EXCLUDED.next_offset, last_event_id = EXCLUDED.last_event_id`;

const keyOf = (topic: string, partition: number, position: StoredPosition): string => JSON.stringify([topic, partition, position.next, position.lastEventId]);
