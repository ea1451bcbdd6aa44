import type { MigrationInterface, QueryRunner } from 'typeorm';
import { SpentStateEntity } from './spent-state.entity';

export class CreateSpentStates1764540000000 implements MigrationInterface {
  name = 'CreateSpentStates1764540000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE edge.spent_states (
        id text PRIMARY KEY,
        expires_at timestamptz NOT NULL,
        spent_at timestamptz NOT NULL DEFAULT now()
      )`);
    // The sweep deletes by expiry.
    await runner.query(`CREATE INDEX spent_states_expires_at ON edge.spent_states (expires_at)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE edge.spent_states`);
  }
}

/** The edge's own schema, used only when ESTATE_EDGE_DATABASE_URL is set. */
export const EDGE_MIGRATIONS = [CreateSpentStates1764540000000];
export const EDGE_ENTITIES = [SpentStateEntity];
