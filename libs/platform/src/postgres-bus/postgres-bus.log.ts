import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { inTransaction, openDatabase } from '../database';
import type { BusMessage, OutgoingMessage, PartitionOffsets, TopicSpec } from '../event-bus.port';
import { BUS_ENTITIES, BusGroupOffsetEntity, BusTopicEntity } from './postgres-bus.entity';
import { BUS_MIGRATIONS } from './postgres-bus.migrations';

/** Where every bus of one database is told that a topic grew (the payload is the topic name). */
export const BUS_CHANNEL = 'estate_bus';
/** Kafka forgets the positions of groups idle this long (offsets.retention.minutes); so do we. */
const GROUP_RETENTION = '7 days';

/** The SQL of the durable log: topics, messages and group positions in the `bus` schema. */
export class PostgresBusLog {
  private constructor(readonly db: DataSource) {}

  /** Opens the log, applying its migrations under a lock so two processes starting together cannot race. */
  static async open(url: string, poolSize: number): Promise<PostgresBusLog> {
    const lock = new Client({ connectionString: url });
    await lock.connect();
    try {
      // Raw SQL: an advisory lock, held on a session of its own until the migrations ran.
      await lock.query(`SELECT pg_advisory_lock(hashtext('estate.bus.migrations'))`);
      const db = await openDatabase({ url, schema: 'bus', migrations: BUS_MIGRATIONS, entities: BUS_ENTITIES, poolSize });
      await db.manager.createQueryBuilder().delete().from(BusGroupOffsetEntity)
        .where(`updated_at < now() - interval '${GROUP_RETENTION}'`)
        .execute();
      return new PostgresBusLog(db);
    } finally {
      await lock.end();
    }
  }

  async ensureTopics(topics: TopicSpec[]): Promise<void> {
    if (topics.length === 0) return;
    await this.db.manager.createQueryBuilder().insert().into(BusTopicEntity)
      .values(topics.map((t) => ({ name: t.name, compacted: t.compacted ?? false })))
      .orIgnore()
      .execute();
  }

  /**
   * Appends in one transaction. Updating the topic's row takes its lock until commit, so offsets
   * are dense and commit in order; the NOTIFY is delivered at commit, never before.
   */
  async append(topic: string, messages: OutgoingMessage[]): Promise<void> {
    // Raw SQL: offsets reserved under the topic row's lock (UPDATE … RETURNING), rows numbered by
    // unnest WITH ORDINALITY, compaction as a correlated DELETE, and the commit-time NOTIFY.
    await inTransaction(this.db, async (runner) => {
      const reserve = () => runner.query(
        `UPDATE bus.topics SET next_offset = next_offset + $2 WHERE name = $1 RETURNING next_offset - $2 AS first, compacted`,
        [topic, messages.length],
      ) as Promise<[Array<{ first: string; compacted: boolean }>, number]>;
      let [rows] = await reserve();
      if (rows.length === 0) {
        // Like a broker with auto-creation: a topic nobody declared is created on first publish.
        await runner.query(`INSERT INTO bus.topics (name) VALUES ($1) ON CONFLICT (name) DO NOTHING`, [topic]);
        [rows] = await reserve();
      }
      const { first, compacted } = rows[0];
      const keys = messages.map((m) => Buffer.from(m.key, 'utf8'));
      await runner.query(
        `INSERT INTO bus.messages (topic, "offset", key, value, headers)
         SELECT $1, $2::bigint + m.i - 1, m.key, m.value, m.headers
           FROM unnest($3::bytea[], $4::bytea[], $5::bytea[]) WITH ORDINALITY AS m(key, value, headers, i)`,
        [topic, first, keys, messages.map((m) => (m.value === null ? null : Buffer.from(m.value, 'utf8'))), messages.map(encodeHeaders)],
      );
      // Compaction at write time: only the newest message of each key is kept (a tombstone included).
      if (compacted) {
        await runner.query(
          `DELETE FROM bus.messages m USING unnest($2::bytea[]) AS k(key)
            WHERE m.topic = $1 AND m.key = k.key
              AND m."offset" < (SELECT max(l."offset") FROM bus.messages l WHERE l.topic = $1 AND l.key = k.key)`,
          [topic, keys],
        );
      }
      await runner.query(`SELECT pg_notify($1, $2)`, [BUS_CHANNEL, topic]);
    });
  }

  /**
   * Up to `limit` messages from offset `from` on, in offset order. Offsets of a topic that is not
   * compacted are dense, so its next `limit` messages lie in [from, from + limit): the query says
   * so, and reads that many rows whatever plan the statistics pick. (An open range with LIMIT
   * let a planner with stale statistics, after a burst of appends, scan and sort every message
   * after `from` for each page: a long log read page by page cost its length squared.) A
   * compacted topic has gaps and keeps the open range.
   *
   * Raw SQL, the bytes as base64: bytea travels as hex, and parsing the hex plus TypeORM's
   * hydration of each row cost a long read more than folding what it read. (Not as text: a
   * string may hold NUL, which PostgreSQL text cannot.)
   */
  async read(topic: string, from: bigint, limit: number): Promise<BusMessage[]> {
    const rows = (await this.db.query(
      `SELECT m."offset"::text AS "offset", encode(m.key, 'base64') AS key, encode(m.value, 'base64') AS value, encode(m.headers, 'base64') AS headers
         FROM bus.messages m
        WHERE m.topic = $1 AND m."offset" >= $2::bigint
          AND m."offset" < (SELECT CASE WHEN t.compacted THEN t.next_offset ELSE least(t.next_offset, $2::bigint + $3::bigint) END FROM bus.topics t WHERE t.name = $1)
        ORDER BY m."offset" LIMIT $3`,
      [topic, from.toString(), limit],
    )) as Array<{ offset: string; key: string | null; value: string | null; headers: string | null }>;
    return rows.map((row) => ({
      topic,
      partition: 0,
      offset: row.offset,
      key: fromBase64(row.key),
      value: fromBase64(row.value),
      headers: row.headers === null ? {} : (JSON.parse(Buffer.from(row.headers, 'base64').toString('utf8')) as Record<string, string>),
    }));
  }

  async committed(groupId: string, topic: string): Promise<bigint | undefined> {
    const row = await this.db.manager.findOneBy(BusGroupOffsetEntity, { groupId, topic });
    return row ? BigInt(row.nextOffset) : undefined;
  }

  async commit(groupId: string, topic: string, next: bigint): Promise<void> {
    await this.db.manager.upsert(BusGroupOffsetEntity, { groupId, topic, nextOffset: next.toString(), updatedAt: () => 'now()' }, ['groupId', 'topic']);
  }

  /**
   * `low` is the log start, as Kafka reports it: compaction removes superseded messages inside
   * the log without moving its start. An unknown topic holds nothing yet.
   */
  async offsets(topic: string): Promise<PartitionOffsets[]> {
    const row = await this.db.manager.findOne(BusTopicEntity, { where: { name: topic }, select: { startOffset: true, nextOffset: true } });
    return [{ partition: 0, low: row?.startOffset ?? '0', high: row?.nextOffset ?? '0' }];
  }

  async close(): Promise<void> {
    if (this.db.isInitialized) await this.db.destroy();
  }
}

function encodeHeaders(message: OutgoingMessage): Buffer | null {
  const headers = message.headers ?? {};
  return Object.keys(headers).length === 0 ? null : Buffer.from(JSON.stringify(headers), 'utf8');
}

/** PostgreSQL's base64 breaks lines every 76 characters; Buffer's decoder skips them. */
function fromBase64(text: string | null): string | null {
  return text === null ? null : Buffer.from(text, 'base64').toString('utf8');
}
