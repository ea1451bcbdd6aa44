import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { callEnvelopeText, topicName, type CallEvent } from '@estate/events';
import { batchBySize, createLogger, KafkaEventBus, messageBytes, openDatabase, timeOrderedEventId, type OutgoingMessage } from '@estate/platform';
import { createTestDatabase, kafkaBrokers, randomTopicPrefix } from '../../../test/support/infra';
import { startAudit, type RunningAudit } from './audit.app';
import { loadAuditConfig } from './config';
import { AuditRepository } from './store/audit.repository';
import { AUDIT_ENTITIES, AUDIT_MIGRATIONS } from './store/migrations';

const logger = createLogger('audit-dropped-connections', process.env.LOG_LEVEL ?? 'silent');
const RECORDS = 20_000;

/** A call record exactly as the edge writes it. */
function callRecord(i: number): OutgoingMessage {
  const principal = `agent-${i % 9}`;
  const event: CallEvent = {
    type: 'ToolCallCompleted', version: 1,
    data: { attempts: 1, durationMs: i % 50, outcome: 'ok', principal, repaired: 0, tool: 'payments.lookup', version: '1.0.0' },
  };
  return { key: principal, value: callEnvelopeText(event, timeOrderedEventId(Date.UTC(2026, 0, 1) + i), 'session-1', new Date(Date.UTC(2026, 0, 1) + i)) };
}

describe('audit on Kafka while PostgreSQL keeps dropping its connections', () => {
  let test: { url: string; drop(): Promise<void> };
  let db: DataSource;
  let bus: KafkaEventBus;
  let audit: RunningAudit | undefined;

  beforeAll(async () => {
    test = await createTestDatabase();
    db = await openDatabase({ url: test.url, schema: 'audit', migrations: AUDIT_MIGRATIONS, entities: AUDIT_ENTITIES, poolSize: 2 });
    bus = new KafkaEventBus({ brokers: kafkaBrokers(), clientId: 'audit-dropped-connections', logger });
  });

  afterAll(async () => {
    await audit?.stop();
    await bus.close();
    await db.destroy();
    await test.drop();
  });

  it('records every call once, in a chain that verifies, though batches fail after the bus has fetched past them', async () => {
    const prefix = randomTopicPrefix();
    const topic = topicName(prefix, 'calls');
    await bus.ensureTopics([{ name: topic }]);
    const records = Array.from({ length: RECORDS }, (_, i) => callRecord(i));
    for (const batch of batchBySize(records, messageBytes, 5000, 900 * 1024)) await bus.publish(topic, batch);

    const config = loadAuditConfig({ ESTATE_AUDIT_PORT: '0', ESTATE_JWT_SECRET: 'dropped-connections-secret-0123456789', ESTATE_TOPIC_PREFIX: prefix, ESTATE_AUDIT_GROUP: `audit-${randomUUID()}` });
    const killer = new Client({ connectionString: test.url });
    await killer.connect();
    let dropped = 0;
    // Every 300 ms until five have been cut, every statement audit has running is cut off with its connection, as a PostgreSQL failover or a network blip would.
    const kill = async () => {
      const { rowCount } = await killer.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid() AND state = 'active' AND query LIKE '%audit.%'`);
      dropped += rowCount ?? 0;
    };
    audit = await startAudit({ ...config, databaseUrl: test.url }, bus, logger);
    const position = async () => Number((await killer.query(`SELECT next_offset::text AS next FROM audit.positions WHERE topic = $1`, [topic])).rows[0]?.next ?? 0);
    try {
      const deadline = Date.now() + 120_000;
      while ((await position()) < RECORDS) {
        if (Date.now() > deadline) throw new Error(`audit stood at offset ${await position()} of ${RECORDS} after 120 s`);
        if (dropped < 5) await kill();
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
    } finally {
      await killer.end();
    }

    expect(dropped).toBeGreaterThanOrEqual(3);
    const [counts] = await db.query(`SELECT count(*)::int AS entries, count(DISTINCT event_id)::int AS events FROM audit.entries`);
    expect(counts).toEqual({ entries: RECORDS, events: RECORDS });
    expect(await new AuditRepository(db).verify()).toMatchObject({ ok: true, entries: RECORDS });
  }, 180_000);
});
