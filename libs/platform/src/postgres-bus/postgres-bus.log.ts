import { Client, type Pool } from 'pg';
import type { DataSource } from 'typeorm';
import { inTransaction, openDatabase, pgPool } from '../database';
import type { BusMessage, OutgoingMessage, PartitionOffsets, TopicSpec } from '../event-bus.port';
import { BUS_ENTITIES, BusGroupOffsetEntity, BusTopicEntity } from './postgres-bus.entity';
import { APPEND, COMMIT, COMMITTED, CREATE_TOPIC, LOCK_TOPIC, OFFSETS, READ } from './postgres-bus.statements';
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
    // Idle while the log's migrations run elsewhere: a server going away must not end the process.
    lock.on('error', () => undefined);
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
   * Appends in one statement (postgres-bus.statements.ts says how it keeps offsets dense and in
   * commit order). No row back means the topic does not exist yet, or is compacted and another
   * send committed while this one waited for it: then the lock is taken first, in a transaction.
   */
  async append(topic: string, messages: OutgoingMessage[]): Promise<void> {
    const values = appendValues(topic, messages);
    const { rowCount } = await this.pool().query({ ...APPEND, values });
    if (rowCount !== null && rowCount > 0) return;
    await inTransaction(this.db, async (runner) => {
      // Like a broker with auto-creation: a topic nobody declared is created on first publish.
      await runner.query(CREATE_TOPIC, [topic]);
      await runner.query(LOCK_TOPIC, [topic]);
      // With the lock held, this statement's snapshot sees every send before it: its row comes back.
      const rows = (await runner.query(APPEND.text, values)) as unknown[];
      if (rows.length === 0) throw new Error(`the bus topic ${topic} vanished while a send held its lock`);
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
   * string may hold NUL, which PostgreSQL text cannot.) Named, its generic plan is that same
   * bounded range on the primary key: the bound holds whatever the statistics say.
   */
  async read(topic: string, from: bigint, limit: number): Promise<BusMessage[]> {
    const { rows } = await this.pool().query<{ offset: string; key: string | null; value: string | null; headers: string | null }>({
      ...READ, values: [topic, from.toString(), limit],
    });
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
    const { rows } = await this.pool().query<{ next: string }>({ ...COMMITTED, values: [groupId, topic] });
    return rows.length > 0 ? BigInt(rows[0].next) : undefined;
  }

  async commit(groupId: string, topic: string, next: bigint): Promise<void> {
    await this.pool().query({ ...COMMIT, values: [groupId, topic, next.toString()] });
  }

  /**
   * `low` is the log start, as Kafka reports it: compaction removes superseded messages inside
   * the log without moving its start. An unknown topic holds nothing yet.
   */
  async offsets(topic: string): Promise<PartitionOffsets[]> {
    const { rows } = await this.pool().query<{ low: string; high: string }>({ ...OFFSETS, values: [topic] });
    return [{ partition: 0, low: rows[0]?.low ?? '0', high: rows[0]?.high ?? '0' }];
  }

  private pool(): Pool {
    return pgPool(this.db);
  }

  async close(): Promise<void> {
    if (this.db.isInitialized) await this.db.destroy();
  }
}

/** The send's arrays; a message is the newest of its key when no later message of the send has that key. */
function appendValues(topic: string, messages: OutgoingMessage[]): unknown[] {
  const lastOfKey = new Map(messages.map((m, i) => [m.key, i]));
  return [
    topic, messages.length,
    messages.map((m) => Buffer.from(m.key, 'utf8')),
    messages.map((m) => (m.value === null ? null : Buffer.from(m.value, 'utf8'))),
    messages.map(encodeHeaders),
    messages.map((m, i) => lastOfKey.get(m.key) === i),
    BUS_CHANNEL,
  ];
}

function encodeHeaders(message: OutgoingMessage): Buffer | null {
  const headers = message.headers ?? {};
  return Object.keys(headers).length === 0 ? null : Buffer.from(JSON.stringify(headers), 'utf8');
}

/** PostgreSQL's base64 breaks lines every 76 characters; Buffer's decoder skips them. */
function fromBase64(text: string | null): string | null {
  return text === null ? null : Buffer.from(text, 'base64').toString('utf8');
}
