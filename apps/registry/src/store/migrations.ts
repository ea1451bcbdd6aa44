import type { MigrationInterface, QueryRunner } from 'typeorm';
import { RegistryEventEntity } from './event.entity';
import { RelayCheckpointEntity } from './relay-checkpoint.entity';
import { RelayParkedEntity } from './relay-parked.entity';

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

/**
 * jsonb reorders object keys; a published contract must reach agents exactly as it was
 * written, so event payloads are kept as json (the text as given).
 */
export class KeepEventPayloadText1732900000002 implements MigrationInterface {
  name = 'KeepEventPayloadText1732900000002';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE registry.events ALTER COLUMN data TYPE json USING data::json`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE registry.events ALTER COLUMN data TYPE jsonb USING data::jsonb`);
  }
}

/**
 * What the relay expects the log to hold after its sends: the topic's message count (sum of the
 * partitions' high-water marks) and the last event sent. A log holding fewer messages lost some.
 */
export class RelayLogMark1732900000011 implements MigrationInterface {
  name = 'RelayLogMark1732900000011';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE registry.relay_checkpoint ADD COLUMN log_high bigint NOT NULL DEFAULT 0, ADD COLUMN last_event_id uuid`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE registry.relay_checkpoint DROP COLUMN log_high, DROP COLUMN last_event_id`);
  }
}

/**
 * Events the bus refused for their size (stored before the registry refused such events at the
 * door, or under a topic whose limit was lowered): set aside so the events behind them go on.
 */
export class RelayParked1732900000012 implements MigrationInterface {
  name = 'RelayParked1732900000012';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE TABLE registry.relay_parked (
      relay text NOT NULL,
      event_id uuid NOT NULL,
      stream_id text NOT NULL,
      stream_version integer NOT NULL,
      bytes integer NOT NULL,
      reason text NOT NULL,
      parked_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (relay, event_id)
    )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE registry.relay_parked`);
  }
}


/**
 * The trace an event was appended in: the relay sends the row later, from another context (often
 * another process), and puts this `traceparent` on the message so the trace goes on. Null when
 * tracing was off.
 */
export class EventTraceparent1732900000012 implements MigrationInterface {
  name = 'EventTraceparent1732900000012';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE registry.events ADD COLUMN traceparent text`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE registry.events DROP COLUMN traceparent`);
  }
}

/**
 * The event store is the truth every projection is folded from, so the database refuses to
 * rewrite it, not only this code: history is corrected by appending a compensating event.
 * Statement-level triggers refuse even an UPDATE or DELETE that matches no row, so a careless
 * script fails on an empty table as it would on a full one.
 */
export class EventsAppendOnly1764600000000 implements MigrationInterface {
  name = 'EventsAppendOnly1764600000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE FUNCTION registry.refuse_event_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'registry.events is append-only (% refused): append a compensating event instead', TG_OP
          USING ERRCODE = 'insufficient_privilege';
      END
      $$`);
    await runner.query(`
      CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE ON registry.events
      FOR EACH STATEMENT EXECUTE FUNCTION registry.refuse_event_change()`);
    await runner.query(`
      CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON registry.events
      FOR EACH STATEMENT EXECUTE FUNCTION registry.refuse_event_change()`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TRIGGER events_no_truncate ON registry.events`);
    await runner.query(`DROP TRIGGER events_append_only ON registry.events`);
    await runner.query(`DROP FUNCTION registry.refuse_event_change()`);
  }
}

export const REGISTRY_MIGRATIONS = [
  CreateEventStore1732900000000, KeepEventPayloadText1732900000002, RelayLogMark1732900000011, RelayParked1732900000012,
  EventTraceparent1732900000012, EventsAppendOnly1764600000000,
];

/** The tables these migrations create; the schema drift test holds the two together. */
export const REGISTRY_ENTITIES = [RegistryEventEntity, RelayCheckpointEntity, RelayParkedEntity];
