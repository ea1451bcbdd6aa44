import { randomUUID } from 'node:crypto';
import { Inject, Module, type INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import type { DataSource } from 'typeorm';
import { createTestDatabase, kafkaBrokers } from '../../../../test/support/infra';
import { DeadLetterOffice, deadLetterTableSql } from '../consumer/dead-letter.office';
import { openDatabase } from '../database';
import type { BusMessage, EventBus } from '../event-bus.port';
import { KafkaEventBus } from '../kafka-event-bus';
import { createLogger } from '../logger';
import { PostgresEventBus } from '../postgres-bus/postgres-event-bus';
import { BusConsumer } from './bus-consumer.decorator';
import type { BusBinding } from './bus.binding';
import type { BusContext } from './bus.context';
import { BusTransport } from './bus.transport';

const logger = createLogger('bus-transport-test', 'silent');
const STATE = Symbol('state');

interface State {
  /** Offsets of each batch the handler saw, in order. */
  batches: string[][];
  /** The first batch fails once after writing its rows, as a dropped connection would. */
  failFirst: boolean;
  published: string[];
  /** The handler writes the batch's position in its own statement and says so (BusContext.positionStored). */
  ownPosition?: boolean;
  /** The batch holding this offset fails once after writing its first row. */
  failOnceAt?: string;
}

const POSITION_UPSERT = `INSERT INTO bt.positions VALUES ($1, $2, $3, $4) ON CONFLICT (topic, partition) DO UPDATE SET next = EXCLUDED.next, last_event_id = EXCLUDED.last_event_id`;

@BusConsumer()
class ThingsController {
  constructor(@Inject(STATE) private readonly state: State) {}

  @EventPattern('things')
  async things(@Payload() messages: BusMessage[], @Ctx() context: BusContext): Promise<void> {
    this.state.batches.push(messages.map((m) => m.offset));
    const runner = context.requireTransaction();
    // The primary key would refuse an offset applied twice (and the batch would be dead-lettered).
    const insert = (m: BusMessage) => runner.query(`INSERT INTO bt.applied ("offset", value) VALUES ($1, $2)`, [m.offset, m.value]);
    await insert(messages[0]);
    const failHere = this.state.failOnceAt !== undefined && messages.some((m) => m.offset === this.state.failOnceAt);
    if (this.state.failFirst || failHere) {
      this.state.failFirst = false;
      this.state.failOnceAt = undefined;
      throw Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' });
    }
    for (const m of messages.slice(1)) await insert(m);
    if (this.state.ownPosition && context.position) {
      const { topic, partition } = context.origin;
      await runner.query(POSITION_UPSERT, [topic, partition, context.position.next, context.position.lastEventId]);
      context.positionStored();
    }
    context.afterCommit(async () => void this.state.published.push(...messages.map((m) => m.offset)));
  }
}

@Module({})
class ThingsModule {
  static with(state: State) {
    return { module: ThingsModule, controllers: [ThingsController], providers: [{ provide: STATE, useValue: state }] };
  }
}

const buses: Array<[string, (url: string) => EventBus]> = [
  ['the embedded PostgreSQL log', (url) => new PostgresEventBus({ url, logger, poolSize: 3 })],
  ['Kafka', () => new KafkaEventBus({ brokers: kafkaBrokers(), clientId: 'bus-transport-test', logger })],
];

describe.each(buses)('BusTransport on %s', (_, makeBus) => {
  let test: { url: string; drop(): Promise<void> };
  let db: DataSource;
  let bus: EventBus;
  const topic = `bt-${randomUUID()}`;
  const apps: INestMicroservice[] = [];
  let transportWrites = 0;

  beforeAll(async () => {
    test = await createTestDatabase();
    db = await openDatabase({ url: test.url, schema: 'bt', migrations: [], poolSize: 3 });
    // A value PostgreSQL refuses (the CHECK) is the message's fault: it must be dead-lettered, alone.
    await db.query(`CREATE TABLE bt.applied ("offset" bigint PRIMARY KEY, value text CHECK (value <> 'poison'))`);
    await db.query(`CREATE TABLE bt.positions (topic text, partition int, next text, last_event_id text, PRIMARY KEY (topic, partition))`);
    await db.query(deadLetterTableSql('bt'));
    bus = makeBus(test.url);
    await bus.ensureTopics([{ name: topic }]);
  });

  afterAll(async () => {
    for (const app of apps) await app.close();
    await bus.close();
    await db.destroy();
    await test.drop();
  });

  function binding(deadLetters: DeadLetterOffice, readAhead: boolean): BusBinding {
    return {
      topic,
      groupId: `g-${topic}`,
      ...(readAhead ? { maxBatch: 2 } : {}),
      transactional: {
        readAhead,
        db,
        positions: {
          get: async (t, p) => {
            const rows: Array<{ next: string; last_event_id: string | null }> = await db.query(`SELECT next, last_event_id FROM bt.positions WHERE topic = $1 AND partition = $2`, [t, p]);
            return rows[0] && { next: rows[0].next, lastEventId: rows[0].last_event_id };
          },
          set: async (runner, t, p, position) => {
            transportWrites += 1;
            await runner.query(POSITION_UPSERT, [t, p, position.next, position.lastEventId]);
          },
        },
        deadLetters: {
          office: deadLetters, consumer: 'things',
          store: async (runner, record) => void (await runner.query(`INSERT INTO bt.dead_letters (topic, partition, "offset", reason) VALUES ($1, $2, $3, $4)`, [record.topic, record.partition, record.offset, record.reason])),
        },
        onLogLost: async () => undefined,
      },
    };
  }

  async function start(state: State, readAhead = false): Promise<INestMicroservice> {
    const deadLetters = new DeadLetterOffice(bus, `${topic}.dlq`, 'test', logger);
    await deadLetters.prepare();
    const app = await NestFactory.createMicroservice(ThingsModule.with(state), { strategy: new BusTransport(bus, { bindings: { things: binding(deadLetters, readAhead) }, logger }), logger: false });
    await app.listen();
    apps.push(app);
    return app;
  }

  async function settled(next: string): Promise<void> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const rows: Array<{ next: string }> = await db.query(`SELECT next FROM bt.positions WHERE topic = $1`, [topic]);
      if (rows[0]?.next === next) return;
      if (Date.now() > deadline) throw new Error(`position ${rows[0]?.next} never reached ${next}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  const send = (values: string[]) => bus.publish(topic, values.map((value) => ({ key: 'k', value, headers: { 'estate-id': randomUUID() } })));

  it('applies each batch and its position in one transaction, retries an outage, dead-letters a poison message alone', async () => {
    await send(['a', 'b', 'c', 'd', 'poison', 'f', 'g']);
    const state: State = { batches: [], failFirst: true, published: [] };
    const app = await start(state);
    await settled('7');
    const applied: Array<{ offset: string; value: string }> = await db.query(`SELECT "offset"::text AS offset, value FROM bt.applied ORDER BY "offset"`);
    expect(applied.map((r) => r.value)).toEqual(['a', 'b', 'c', 'd', 'f', 'g']);
    const letters: Array<{ offset: string; reason: string }> = await db.query(`SELECT "offset"::text AS offset, reason FROM bt.dead_letters`);
    expect(letters).toEqual([{ offset: '4', reason: expect.stringMatching(/^PostgreSQL 23514/) }]);
    // The failed first batch came again whole; after the poison batch failed, its messages came one by one.
    expect(state.batches[0]).toEqual(state.batches[1]);
    expect(state.batches.flat()).toEqual(expect.arrayContaining(['0', '1', '2', '3', '4', '5', '6']));
    expect(new Set(state.published)).toEqual(new Set(['0', '1', '2', '3', '5', '6']));
    expect((await bus.offsets(`${topic}.dlq`))[0].high).toBe('1');

    // Restarted: nothing is read or applied again; what comes next is.
    await app.close();
    const again: State = { batches: [], failFirst: false, published: [] };
    await start(again);
    await send(['h', 'i']);
    await settled('9');
    expect(again.batches.flat()).toEqual(['7', '8']);
    expect((await db.query(`SELECT count(*)::int AS n FROM bt.applied`))[0].n).toBe(8);
  }, 90_000);

  it('writes nothing more when the handler stored the batch position itself, and resumes from that position', async () => {
    for (const app of apps.splice(0)) await app.close();
    const own: State = { batches: [], failFirst: false, published: [], ownPosition: true };
    await start(own);
    const before = transportWrites;
    await send(['j', 'k']);
    await settled('11');
    expect(transportWrites).toBe(before);
    for (const app of apps.splice(0)) await app.close();
    const after: State = { batches: [], failFirst: false, published: [] };
    await start(after);
    await send(['l']);
    await settled('12');
    expect(after.batches.flat()).toEqual(['11']);
  }, 90_000);

  it('reading ahead, a batch that fails after the bus moved past it is applied again and nothing after it is skipped', async () => {
    for (const app of apps.splice(0)) await app.close();
    // Batches of two from offset 12; the one holding offset 14 fails once, after the bus has handed on the batch behind it.
    const state: State = { batches: [], failFirst: false, failOnceAt: '14', published: [] };
    await start(state, true);
    const values = ['m', 'n', 'o', 'p', 'q', 'r', 's', 't', 'u'];
    await send(values);
    await settled('21');
    const applied: Array<{ value: string }> = await db.query(`SELECT value FROM bt.applied WHERE "offset" >= 12 ORDER BY "offset"`);
    expect(applied.map((r) => r.value)).toEqual(values);
    expect((await db.query(`SELECT count(*)::int AS n FROM bt.dead_letters`))[0].n).toBe(1);
    // The failed batch came twice: once when it failed, once after the subscription started over from the stored position.
    expect(state.batches.filter((b) => b.includes('14'))).toHaveLength(2);
    expect(new Set(state.published)).toEqual(new Set(['12', '13', '14', '15', '16', '17', '18', '19', '20']));
    // Stopped and started again: nothing is applied twice, the next message is applied once.
    for (const app of apps.splice(0)) await app.close();
    const after: State = { batches: [], failFirst: false, published: [] };
    await start(after, true);
    await send(['v']);
    await settled('22');
    expect(after.batches.flat()).toEqual(['21']);
  }, 90_000);
});
