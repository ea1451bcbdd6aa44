import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateEventStore1732900000000 implements MigrationInterface {
  name = 'CreateEventStore1732900000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE registry.events (
        position bigserial PRIMARY KEY,
        id uuid NOT NULL UNIQUE,
        stream_id text NOT NULL,
        stream_version integer NOT NULL,
        type text NOT NULL,
        version integer NOT NULL,
        data jsonb NOT NULL,
        actor text NOT NULL,
        correlation_id text NOT NULL,
        occurred_at timestamptz NOT NULL,
        tx_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
        CONSTRAINT events_stream_version_unique UNIQUE (stream_id, stream_version)
      )`);
    await runner.query(`CREATE INDEX events_tx_position ON registry.events (tx_id, position)`);
    await runner.query(`
      CREATE TABLE registry.relay_checkpoint (
        relay text PRIMARY KEY,
        tx_id xid8 NOT NULL,
        position bigint NOT NULL
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE registry.relay_checkpoint`);
    await runner.query(`DROP TABLE registry.events`);
  }
}

export const REGISTRY_MIGRATIONS = [CreateEventStore1732900000000];
