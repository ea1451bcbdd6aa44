import { deadLetterTableSql } from '@estate/platform';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { AuditDeadLetterEntity } from './audit-dead-letter.entity';
import { AuditEntryEntity } from './audit-entry.entity';
import { AuditPositionEntity } from './audit-position.entity';
import { ChainHeadEntity } from './chain-head.entity';
import { ConsumedEntity } from './consumed.entity';
import { WebhookDeliveryEntity, WebhookSubscriptionEntity } from '../webhooks/webhook.entities';
import { WebhookSubscriptions1764520000000 } from '../webhooks/webhook.migration';

export class CreateAuditTrail1732900000002 implements MigrationInterface {
  name = 'CreateAuditTrail1732900000002';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE audit.entries (
        seq bigserial PRIMARY KEY,
        event_id text NOT NULL,
        topic text NOT NULL,
        type text NOT NULL,
        stream text NOT NULL,
        tool text,
        version text,
        principal text NOT NULL,
        outcome text,
        occurred_at timestamptz NOT NULL,
        recorded_at timestamptz NOT NULL DEFAULT now(),
        payload jsonb NOT NULL,
        prev_hash text NOT NULL,
        hash text NOT NULL,
        -- Events arrive at least once: the id decides whether one is already in the trail.
        CONSTRAINT entries_event_id_unique UNIQUE (event_id)
      )`);
    await runner.query(`CREATE INDEX entries_tool_version_seq ON audit.entries (tool, version, seq)`);
    await runner.query(`CREATE INDEX entries_principal_seq ON audit.entries (principal, seq)`);
    await runner.query(`CREATE INDEX entries_type_seq ON audit.entries (type, seq)`);
    await runner.query(`CREATE INDEX entries_topic_seq ON audit.entries (topic, seq)`);
    await runner.query(`CREATE INDEX entries_occurred_at ON audit.entries (occurred_at)`);
    // One row, locked by every append: appends from any number of audit instances form one chain.
    await runner.query(`
      CREATE TABLE audit.chain_head (
        id smallint PRIMARY KEY CHECK (id = 1),
        last_seq bigint NOT NULL,
        hash text NOT NULL
      )`);
    await runner.query(`INSERT INTO audit.chain_head (id, last_seq, hash) VALUES (1, 0, repeat('0', 64))`);
    // The trail is evidence: refuse changes at the database too, not only in this code.
    await runner.query(`
      CREATE FUNCTION audit.refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'audit.entries is append-only (% refused)', TG_OP USING ERRCODE = 'insufficient_privilege';
      END
      $$`);
    await runner.query(`
      CREATE TRIGGER entries_append_only BEFORE UPDATE OR DELETE ON audit.entries
      FOR EACH ROW EXECUTE FUNCTION audit.refuse_change()`);
    await runner.query(`
      CREATE TRIGGER entries_no_truncate BEFORE TRUNCATE ON audit.entries
      FOR EACH STATEMENT EXECUTE FUNCTION audit.refuse_change()`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE audit.chain_head, audit.entries`);
    await runner.query(`DROP FUNCTION audit.refuse_change()`);
  }
}

/**
 * No message may stop the recorder: payloads are kept as JSON text (jsonb refuses U+0000 and lone
 * surrogate escapes, text written by JSON.stringify holds both losslessly), what cannot be stored
 * goes to a dead-letter table, and a ledger per partition shows that nothing was skipped.
 */
export class RecordEveryMessage1764500000100 implements MigrationInterface {
  name = 'RecordEveryMessage1764500000100';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE audit.entries ALTER COLUMN payload TYPE text USING payload::text`);
    await runner.query(deadLetterTableSql('audit'));
    // Per partition: the first offset handled, the next one expected, and how many distinct offsets were handled.
    await runner.query(`
      CREATE TABLE audit.consumed (
        topic text NOT NULL,
        partition integer NOT NULL,
        first_offset bigint NOT NULL,
        next_offset bigint NOT NULL,
        handled bigint NOT NULL,
        PRIMARY KEY (topic, partition)
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE audit.consumed, audit.dead_letters`);
    await runner.query(`ALTER TABLE audit.entries ALTER COLUMN payload TYPE jsonb USING payload::jsonb`);
  }
}

/**
 * Where the trail's consumers stand in each log, with the id of the event recorded last: a
 * restart checks the log still holds that event there, and re-reads a log that was recreated.
 */
export class ConsumerPositions1732900000012 implements MigrationInterface {
  name = 'ConsumerPositions1732900000012';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE audit.positions (
        topic text NOT NULL, partition integer NOT NULL, next_offset bigint NOT NULL, last_event_id text,
        PRIMARY KEY (topic, partition)
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE audit.positions`);
  }
}

/**
 * occurred_at follows the order entries are appended in closely (calls and registry events are
 * recorded as they happen), so a block-range index answers `from`/`to` with a few pages read and
 * costs the append almost nothing; the B-tree it replaces was one of the five indexes each of
 * the many rows per second updates. Same name and column: the entity's @Index still describes it.
 */
export class OccurredAtBrin1764530000000 implements MigrationInterface {
  name = 'OccurredAtBrin1764530000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP INDEX audit.entries_occurred_at`);
    await runner.query(`CREATE INDEX entries_occurred_at ON audit.entries USING brin (occurred_at) WITH (pages_per_range = 32)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP INDEX audit.entries_occurred_at`);
    await runner.query(`CREATE INDEX entries_occurred_at ON audit.entries (occurred_at)`);
  }
}

/**
 * The (topic, seq) index serves one reader, the registry log's entries after a seq (the change
 * feed and webhook deliveries), yet every call record, most of the trail, paid a B-tree insert
 * for it (about a tenth of PostgreSQL's CPU per appended row). Registry entries have no outcome
 * (audit-entry.mapper.ts) and call records nearly always have one, so the index keeps the rows
 * with none, and topicEntriesAfter asks for exactly those. Same name and columns.
 */
export class TopicSeqWithoutOutcomes1764540000000 implements MigrationInterface {
  name = 'TopicSeqWithoutOutcomes1764540000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP INDEX audit.entries_topic_seq`);
    await runner.query(`CREATE INDEX entries_topic_seq ON audit.entries (topic, seq) WHERE outcome IS NULL`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP INDEX audit.entries_topic_seq`);
    await runner.query(`CREATE INDEX entries_topic_seq ON audit.entries (topic, seq)`);
  }
}

/**
 * Completed calls are nearly every row of the trail, and every one of them paid a B-tree insert
 * into (type, seq) that no query needs: asking for `type=ToolCallCompleted` matches most rows, so
 * newest-first pages read the primary key backwards and stop at the limit. The index keeps the
 * other types (refusals, registry events, probes), which are the rare ones a type filter finds,
 * and the query states the predicate so the planner can use it. Same name and columns.
 */
export class TypeSeqWithoutCompletedCalls1764550000000 implements MigrationInterface {
  name = 'TypeSeqWithoutCompletedCalls1764550000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP INDEX audit.entries_type_seq`);
    // Written out, not the entity's TYPE_INDEX_PREDICATE: a migration states what it did then, whatever the code says later.
    await runner.query(`CREATE INDEX entries_type_seq ON audit.entries (type, seq) WHERE type <> 'ToolCallCompleted'`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP INDEX audit.entries_type_seq`);
    await runner.query(`CREATE INDEX entries_type_seq ON audit.entries (type, seq)`);
  }
}

export const AUDIT_MIGRATIONS = [
  CreateAuditTrail1732900000002, ConsumerPositions1732900000012, RecordEveryMessage1764500000100, WebhookSubscriptions1764520000000, OccurredAtBrin1764530000000,
  TopicSeqWithoutOutcomes1764540000000, TypeSeqWithoutCompletedCalls1764550000000,
];

/** The tables these migrations create; the schema drift test holds the two together. */
export const AUDIT_ENTITIES = [AuditEntryEntity, ChainHeadEntity, AuditPositionEntity, ConsumedEntity, AuditDeadLetterEntity, WebhookSubscriptionEntity, WebhookDeliveryEntity];
