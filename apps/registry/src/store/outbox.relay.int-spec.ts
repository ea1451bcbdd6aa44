import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { EventEnvelope } from '@estate/events';
import { createLogger, KafkaEventBus, openDatabase, type Subscription } from '@estate/platform';
import { createTestDatabase, kafkaBrokers, randomTopicPrefix } from '../../../../test/support/infra';
import { ConcurrencyConflict } from './event-store.port';
import { REGISTRY_ENTITIES, REGISTRY_MIGRATIONS } from './migrations';
import { OutboxRelay } from './outbox.relay';
import { PostgresEventStore } from './postgres-event-store';

const STREAMS = 12;
const EVENTS_PER_STREAM = 20;
const WRITERS = 16;

describe('outbox relay under concurrent appends (real PostgreSQL and Kafka)', () => {
  const logger = createLogger('relay-test', 'error');
  let db: DataSource;
  let drop: () => Promise<void>;
  let url: string;
  let bus: KafkaEventBus;
  let relay: OutboxRelay;
  let subscription: Subscription;
  const topic = `${randomTopicPrefix()}estate.registry.events`;
  const received: EventEnvelope[] = [];

  beforeAll(async () => {
    ({ url, drop } = await createTestDatabase());
    db = await openDatabase({ url, schema: 'registry', migrations: REGISTRY_MIGRATIONS, entities: REGISTRY_ENTITIES, poolSize: WRITERS + 4 });
    bus = new KafkaEventBus({ brokers: kafkaBrokers(), clientId: 'relay-test', logger });
    await bus.ensureTopics([{ name: topic, partitions: 3 }]);
    subscription = await bus.subscribe({
      topic,
      groupId: `relay-test-${randomUUID()}`,
      fromBeginning: true,
      handle: async (m) => {
        received.push(JSON.parse(m.value ?? 'null') as EventEnvelope);
      },
    });
    relay = new OutboxRelay(db, url, bus, topic, logger);
    await relay.start();
  });

  afterAll(async () => {
    await relay.stop();
    await subscription.stop();
    await bus.close();
    await db.destroy();
    await drop();
  });

  it('publishes every event of every stream exactly once and in stream order', async () => {
    const store = new PostgresEventStore(db, randomUUID, () => new Date());
    const next = new Map<string, number>();
    const work: string[] = [];
    for (let i = 0; i < EVENTS_PER_STREAM; i += 1) for (let s = 0; s < STREAMS; s += 1) work.push(`tool:t${s}`);
    let conflicts = 0;
    // Many writers, each on its own pooled connection, racing on the same streams.
    await Promise.all(Array.from({ length: WRITERS }, async () => {
      for (let job = work.shift(); job !== undefined; job = work.shift()) {
        for (;;) {
          const expected = (await store.readStream(job)).length;
          try {
            await store.append(job, expected, [{ type: 'Probe', version: 1, data: { n: expected } }], { actor: 'test', correlationId: 'c' });
            next.set(job, expected + 1);
            break;
          } catch (error) {
            if (!(error instanceof ConcurrencyConflict)) throw error;
            conflicts += 1;
          }
        }
      }
    }));
    const total = STREAMS * EVENTS_PER_STREAM;
    const deadline = Date.now() + 30000;
    while (received.length < total && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));

    expect(received).toHaveLength(total);
    expect(new Set(received.map((e) => e.id)).size).toBe(total);
    const byStream = new Map<string, number[]>();
    for (const e of received) byStream.set(e.stream, [...(byStream.get(e.stream) ?? []), e.position]);
    expect(byStream.size).toBe(STREAMS);
    for (const positions of byStream.values()) {
      expect(positions).toEqual(Array.from({ length: EVENTS_PER_STREAM }, (_, i) => i));
    }
    // The race was real: writers collided and retried.
    expect(conflicts).toBeGreaterThan(0);
  });
});
