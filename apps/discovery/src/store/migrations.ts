import { deadLetterTableSql } from '@estate/platform';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { CatalogCheckpointEntity } from './catalog-checkpoint.entity';
import { CatalogDeadLetterEntity } from './catalog-dead-letter.entity';
import { CatalogServerEntity } from './catalog-server.entity';
import { CatalogToolVersionEntity } from './catalog-tool-version.entity';
import { CatalogToolEntity } from './catalog-tool.entity';
import { StreamPositionEntity } from './stream-position.entity';

export class CreateCatalogProjection1732900000001 implements MigrationInterface {
  name = 'CreateCatalogProjection1732900000001';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE TABLE discovery.servers (name text PRIMARY KEY, data jsonb NOT NULL)`);
    await runner.query(`CREATE TABLE discovery.tools (name text PRIMARY KEY, server text NOT NULL, entry jsonb NOT NULL)`);
    await runner.query(`CREATE INDEX tools_server ON discovery.tools (server)`);
    // Last applied position per registry stream: applying an event twice is a no-op.
    await runner.query(`CREATE TABLE discovery.streams (stream_id text PRIMARY KEY, position integer NOT NULL)`);
    // Next Kafka offset per partition, committed in the same transaction as the projection rows.
    await runner.query(`
      CREATE TABLE discovery.checkpoints (
        topic text NOT NULL, partition integer NOT NULL, next_offset bigint NOT NULL,
        PRIMARY KEY (topic, partition)
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE discovery.checkpoints, discovery.streams, discovery.tools, discovery.servers`);
  }
}

/** Catalog entries keep the published contracts' key order (jsonb would sort keys). */
export class KeepCatalogText1732900000003 implements MigrationInterface {
  name = 'KeepCatalogText1732900000003';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE discovery.servers ALTER COLUMN data TYPE json USING data::json`);
    await runner.query(`ALTER TABLE discovery.tools ALTER COLUMN entry TYPE json USING entry::json`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE discovery.servers ALTER COLUMN data TYPE jsonb USING data::jsonb`);
    await runner.query(`ALTER TABLE discovery.tools ALTER COLUMN entry TYPE jsonb USING entry::jsonb`);
  }
}

/** Registry messages the projection cannot apply, kept with their reason (the checkpoint moves past them). */
export class CatalogDeadLetters1764500000101 implements MigrationInterface {
  name = 'CatalogDeadLetters1764500000101';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(deadLetterTableSql('discovery'));
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE discovery.dead_letters`);
  }
}

/**
 * A position means nothing without its log: with the next offset, the id of the event applied
 * last, so a restart can check the log still holds that event there.
 */
export class CheckpointEventId1732900000010 implements MigrationInterface {
  name = 'CheckpointEventId1732900000010';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE discovery.checkpoints ADD COLUMN last_event_id text`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE discovery.checkpoints DROP COLUMN last_event_id`);
  }
}

/**
 * A tool's versions move to rows of their own: an entry holds every version of its tool, so
 * rewriting it whole on every publish made a publish cost more the more versions the tool had.
 * The tools row keeps the rest of the entry (name, upstream, position) as `head`.
 */
export class ToolVersionRows1764600000001 implements MigrationInterface {
  name = 'ToolVersionRows1764600000001';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE discovery.tool_versions (
        tool text NOT NULL, version text NOT NULL, body json NOT NULL,
        PRIMARY KEY (tool, version),
        CONSTRAINT tool_versions_tool_fk FOREIGN KEY (tool) REFERENCES discovery.tools (name) ON DELETE CASCADE
      )`);
    await runner.query(`
      INSERT INTO discovery.tool_versions (tool, version, body)
      SELECT t.name, v->>'version', v FROM discovery.tools t, json_array_elements(t.entry->'versions') AS v`);
    await runner.query(`ALTER TABLE discovery.tools RENAME COLUMN entry TO head`);
    await runner.query(`UPDATE discovery.tools SET head = json_build_object('name', head->'name', 'upstream', head->'upstream', 'position', head->'position')`);
  }

  async down(runner: QueryRunner): Promise<void> {
    // Versions come back ordered as text; the next publish of the tool sorts them by semver again.
    await runner.query(`
      UPDATE discovery.tools t SET head = json_build_object(
        'name', t.head->'name', 'upstream', t.head->'upstream',
        'versions', coalesce((SELECT json_agg(v.body ORDER BY v.version) FROM discovery.tool_versions v WHERE v.tool = t.name), '[]'::json),
        'position', t.head->'position')`);
    await runner.query(`ALTER TABLE discovery.tools RENAME COLUMN head TO entry`);
    await runner.query(`DROP TABLE discovery.tool_versions`);
  }
}

export const DISCOVERY_MIGRATIONS = [
  CreateCatalogProjection1732900000001, KeepCatalogText1732900000003, CheckpointEventId1732900000010, CatalogDeadLetters1764500000101, ToolVersionRows1764600000001,
];

/** The tables these migrations create; the schema drift test holds the two together. */
export const DISCOVERY_ENTITIES = [CatalogServerEntity, CatalogToolEntity, CatalogToolVersionEntity, StreamPositionEntity, CatalogCheckpointEntity, CatalogDeadLetterEntity];
