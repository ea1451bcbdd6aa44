import type { DataSource, QueryRunner } from 'typeorm';
import type { PositionStore, StoredPosition } from '@estate/platform';

/**
 * The trail consumers' positions, written in the transaction that appends their batch: a crash
 * keeps both or neither, and a redelivered batch is also deduped by event id.
 */
export class AuditPositions implements PositionStore {
  constructor(private readonly db: DataSource) {}

  async get(topic: string, partition: number): Promise<StoredPosition | undefined> {
    const rows: Array<{ next_offset: string; last_event_id: string | null }> = await this.db.query(
      `SELECT next_offset, last_event_id FROM audit.positions WHERE topic = $1 AND partition = $2`, [topic, partition],
    );
    return rows[0] && { next: rows[0].next_offset, lastEventId: rows[0].last_event_id };
  }

  async set(runner: Pick<QueryRunner, 'query'>, topic: string, partition: number, position: StoredPosition): Promise<void> {
    await runner.query(
      `INSERT INTO audit.positions (topic, partition, next_offset, last_event_id) VALUES ($1, $2, $3, $4)
       ON CONFLICT (topic, partition) DO UPDATE SET next_offset = EXCLUDED.next_offset, last_event_id = EXCLUDED.last_event_id`,
      [topic, partition, position.next, position.lastEventId],
    );
  }
}
