import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { topicName, type EventEnvelope } from '@estate/events';
import { createLogger, KafkaEventBus, openDatabase, PostgresEventBus, type EventBus, type OutgoingMessage } from '@estate/platform';
import { createTestDatabase, kafkaBrokers, randomTopicPrefix } from '../../../test/support/infra';
import { startAudit, type RunningAudit } from './audit.app';
import { loadAuditConfig } from './config';
import { AuditRepository } from './store/audit.repository';
import { AUDIT_ENTITIES, AUDIT_MIGRATIONS } from './store/migrations';

const logger = createLogger('audit-redelivery', process.env.LOG_LEVEL ?? 'silent');

function callRecord(i: number): OutgoingMessage {
  const principal = `agent-${i % 7}`;
  const envelope: EventEnvelope = {
    id: randomUUID(), type: 'ToolCallCompleted', version: 1, stream: `principal:${principal}`, position: 0,
    occurredAt: new Date(Date.UTC(2026, 0, 1) + i).toISOString(), actor: principal, correlationId: 'c',
    data: { principal, tool: 'payments.lookup', version: '1.0.0', outcome: 'ok', durationMs: 1, attempts: 1, repaired: 0 },
  };
  return { key: principal, value: JSON.stringify(envelope) };
}

const buses: Array<[string, (url: string) => EventBus]> = [
  ['Kafka', () => new KafkaEventBus({ brokers: kafkaBrokers(), clientId: 'audit-redelivery', logger })],
  ['the embedded PostgreSQL log', (url) => new PostgresEventBus({ url, logger, poolSize: 3 })],
];

describe.each(buses)('audit on %s: a redelivered batch is never recorded twice', (_, makeBus) => {
  let test: { url: string; drop(): Promise<void> };
  let db: DataSource;
  let bus: EventBus;
  let audit: RunningAudit | undefined;

  beforeAll(async () => {
    test = await createTestDatabase();
    db = await openDatabase({ url: test.url, schema: 'audit', migrations: AUDIT_MIGRATIONS, entities: AUDIT_ENTITIES, poolSize: 2 });
    bus = makeBus(test.url);
  });

  afterAll(async () => {
    await audit?.stop();
    await bus.close();
    await db.destroy();
    await test.drop();
  });

  const count = async (): Promise<number> => Number((await db.query(`SELECT count(*) AS n FROM audit.entries`))[0].n);
  const settled = async (want: number, topic: string): Promise<void> => {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const [high] = await bus.offsets(topic);
      const rows: Array<{ next: string }> = await db.query(`SELECT next_offset::text AS next FROM audit.positions WHERE topic = $1`, [topic]);
      if ((await count()) === want && rows[0]?.next === high.high) return;
      if (Date.now() > deadline) throw new Error(`the trail holds ${await count()} entries, position ${rows[0]?.next}, log end ${high.high}; wanted ${want}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };

  it('keeps one entry per event across a rolled-back batch, duplicates in the log and a full re-read, and the chain verifies', async () => {
    const prefix = randomTopicPrefix();
    const topic = topicName(prefix, 'calls');
    await bus.ensureTopics([{ name: topic }]);
    const first = Array.from({ length: 1200 }, (_, i) => callRecord(i));
    // The producer sent some records twice (an unacknowledged send retried).
    await bus.publish(topic, [...first.slice(0, 700), ...first.slice(100, 150), ...first.slice(700)]);
    // A real fault inside the batch's transaction, after its entries were inserted: the first
    // position write fails once (a sequence is not rolled back), so that batch is delivered again.
    await db.query(`CREATE SEQUENCE audit.fault_once`);
    await db.query(`CREATE FUNCTION audit.fail_once() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF nextval('audit.fault_once') = 1 THEN RAISE EXCEPTION 'injected fault after the batch was appended'; END IF; RETURN NEW; END $$`);
    await db.query(`CREATE TRIGGER positions_fail_once BEFORE INSERT OR UPDATE ON audit.positions FOR EACH ROW EXECUTE FUNCTION audit.fail_once()`);

    const config = { ...loadAuditConfig({ ESTATE_AUDIT_PORT: '0', ESTATE_JWT_SECRET: 'redelivery-secret-0123456789abcdef', ESTATE_TOPIC_PREFIX: prefix, ESTATE_AUDIT_GROUP: `audit-${randomUUID()}` }), databaseUrl: test.url };
    audit = await startAudit(config, bus, logger);
    await settled(1200, topic);
    expect(Number((await db.query(`SELECT last_value FROM audit.fault_once`))[0].last_value)).toBeGreaterThanOrEqual(2);

    // Positions lost: on restart every batch comes again from offset 0, with new records behind them.
    await audit.stop();
    audit = undefined;
    await db.query(`DELETE FROM audit.positions`);
    const more = Array.from({ length: 300 }, (_, i) => callRecord(2000 + i));
    // A message that is no envelope, in a batch that also meets recorded events: that batch is appended a second time without them, and the message is dead-lettered once.
    await bus.publish(topic, [...more.slice(0, 150), { key: 'agent-0', value: 'not an envelope' }, ...more.slice(150), ...first.slice(0, 20)]);
    audit = await startAudit(config, bus, logger);
    await settled(1500, topic);
    const letters: Array<{ value: string }> = await db.query(`SELECT convert_from(value, 'UTF8') AS value FROM audit.dead_letters`);
    expect(letters).toEqual([{ value: 'not an envelope' }]);
    const deadLetterTopic = topicName(prefix, 'deadLetter');
    const sent = async () => Number((await bus.offsets(deadLetterTopic))[0]?.high ?? 0);
    for (const deadline = Date.now() + 10_000; (await sent()) < 1 && Date.now() < deadline;) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await sent()).toBe(1);

    const twice: unknown[] = await db.query(`SELECT event_id FROM audit.entries GROUP BY event_id HAVING count(*) > 1`);
    expect(twice).toEqual([]);
    expect(await new AuditRepository(db).verify()).toMatchObject({ ok: true, entries: 1500 });
  }, 150_000);
});
