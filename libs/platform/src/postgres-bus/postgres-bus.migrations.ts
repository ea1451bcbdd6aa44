import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The durable log of the embedded mode. `topics.next_offset` is the per-topic lock and counter:
 * a publisher updates that row, so publishers of one topic take turns and commit in offset
 * order, and a reader never sees offset n+1 before n. Keys, values and headers are bytes, as in
 * Kafka: text and jsonb cannot hold a NUL character.
 */
export class CreateBusLog1764500000000 implements MigrationInterface {
  name = 'CreateBusLog1764500000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE bus.topics (
        name text PRIMARY KEY,
        id uuid NOT NULL DEFAULT gen_random_uuid(),
        compacted boolean NOT NULL DEFAULT false,
        start_offset bigint NOT NULL DEFAULT 0,
        next_offset bigint NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query(`
      CREATE TABLE bus.messages (
        topic text NOT NULL REFERENCES bus.topics (name),
        "offset" bigint NOT NULL,
        key bytea,
        value bytea,
        headers bytea,
        published_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (topic, "offset")
      )`);
    await runner.query(`CREATE INDEX messages_topic_key ON bus.messages (topic, key, "offset")`);
    await runner.query(`
      CREATE TABLE bus.group_offsets (
        group_id text NOT NULL,
        topic text NOT NULL,
        next_offset bigint NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (group_id, topic)
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE bus.group_offsets`);
    await runner.query(`DROP TABLE bus.messages`);
    await runner.query(`DROP TABLE bus.topics`);
  }
}

/**
 * Two per-row costs of every send, dropped. The foreign key from a message to its topic ran a
 * trigger and a lookup for each row, while the send's own UPDATE of that topic row already proves
 * it exists (and no code deletes a topic). Values are stored uncompressed: a catalog entry carries
 * every version of a tool and is sent again on each change, and compressing it on every insert
 * (and inflating it on every read) cost more CPU than the disk it saved on a log whose compacted
 * topics keep one entry per tool.
 */
export class LighterBusMessages1764700000000 implements MigrationInterface {
  name = 'LighterBusMessages1764700000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE bus.messages DROP CONSTRAINT IF EXISTS messages_topic_fkey`);
    await runner.query(`ALTER TABLE bus.messages ALTER COLUMN value SET STORAGE EXTERNAL`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE bus.messages ALTER COLUMN value SET STORAGE EXTENDED`);
    await runner.query(`ALTER TABLE bus.messages ADD CONSTRAINT messages_topic_fkey FOREIGN KEY (topic) REFERENCES bus.topics (name)`);
  }
}

export const BUS_MIGRATIONS = [CreateBusLog1764500000000, LighterBusMessages1764700000000];
