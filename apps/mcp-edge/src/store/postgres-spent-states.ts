import type { DataSource } from 'typeorm';
import { openDatabase, type Logger } from '@estate/platform';
import type { SpentStates } from '../mcp/spent-states.port';
import { EDGE_ENTITIES, EDGE_MIGRATIONS } from './migrations';
import { SpentStateEntity } from './spent-state.entity';

/** Rows one sweep deletes at most, so a sweep after a long pause never holds the table for long. */
export const SWEEP_BATCH = 1000;
/** Batches per sweep; what is left waits for the next tick. */
const SWEEP_ROUNDS = 10;

/**
 * Spent confirmation states in PostgreSQL (schema `edge`), shared by every edge copy given the
 * same ESTATE_EDGE_DATABASE_URL. An insert that does nothing on conflict decides atomically which
 * request spent a state first, with no lock and no read-then-write race between copies.
 */
export class PostgresSpentStates implements SpentStates {
  readonly shared = true;
  private timer?: NodeJS.Timeout;
  private sweeping?: Promise<number>;

  private constructor(private readonly db: DataSource, private readonly logger: Logger, private readonly clock: () => number) {}

  /** Opens the schema (running its migrations) and sweeps expired rows every `sweepEveryMs`. */
  static async open(url: string, options: { sweepEveryMs: number; logger: Logger; clock?: () => number; poolSize?: number }): Promise<PostgresSpentStates> {
    const db = await openDatabase({ url, schema: 'edge', migrations: EDGE_MIGRATIONS, entities: EDGE_ENTITIES, poolSize: options.poolSize ?? 4 });
    const store = new PostgresSpentStates(db, options.logger, options.clock ?? Date.now);
    store.timer = setInterval(() => void store.sweep().catch((error: unknown) => {
      // Only housekeeping failed: spending still decides correctly, the rows wait for the next tick.
      store.logger.warn({ err: error }, 'could not delete expired spent confirmation states');
    }), options.sweepEveryMs);
    store.timer.unref();
    return store;
  }

  async spendOnce(id: string, expiresAt: number): Promise<boolean> {
    try {
      const result = await this.db.createQueryBuilder()
        .insert().into(SpentStateEntity)
        .values({ id, expiresAt: new Date(expiresAt) })
        .orIgnore()
        .returning('id')
        .execute();
      // ON CONFLICT DO NOTHING returns no row when the id was already there.
      return Array.isArray(result.raw) && result.raw.length === 1;
    } catch (error) {
      this.logger.error({ err: error }, 'could not record a spent confirmation state; the call is refused');
      throw error;
    }
  }

  /** Deletes expired rows in bounded batches; returns how many went. One sweep at a time. */
  sweep(): Promise<number> {
    this.sweeping ??= this.sweepBatches().finally(() => { this.sweeping = undefined; });
    return this.sweeping;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.sweeping?.catch(() => undefined);
    await this.db.destroy();
  }

  private async sweepBatches(): Promise<number> {
    const now = new Date(this.clock());
    let deleted = 0;
    for (let round = 0; round < SWEEP_ROUNDS; round += 1) {
      // Raw SQL: TypeORM's delete builder cannot say DELETE … LIMIT (here as a keyed sub-select).
      const [, count] = await this.db.query(
        `DELETE FROM edge.spent_states WHERE id IN (SELECT id FROM edge.spent_states WHERE expires_at <= $1 LIMIT ${SWEEP_BATCH})`,
        [now],
      ) as [unknown, number];
      deleted += count;
      if (count < SWEEP_BATCH) break;
    }
    return deleted;
  }
}
