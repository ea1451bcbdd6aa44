import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { EventEnvelope } from '@estate/events';
import { createLogger, InMemoryEventBus, openDatabase, type Subscription } from '@estate/platform';
import { waitFor } from '../../../../test/support/estate.harness';
import { createTestDatabase } from '../../../../test/support/infra';
import { REGISTRY_ENTITIES, REGISTRY_MIGRATIONS } from './migrations';
import { OutboxRelay } from './outbox.relay';
import { PostgresEventStore } from './postgres-event-store';

const TOPIC = 'estate.registry.events';

describe('two registry instances on one database (real PostgreSQL)', () => {
  const logger = createLogger('relay-lock-test', 'error');
  const bus = new InMemoryEventBus();
  const received: EventEnvelope[] = [];
  let db: DataSource;
  let url: string;
  let drop: () => Promise<void>;
  let subscription: Subscription;
  let first: OutboxRelay;
  let second: OutboxRelay;
  let store: PostgresEventStore;
  const counts = new Map<string, number>();

  async function append(stream: string, n: number): Promise<void> {
    for (let i = 0; i < n; i += 1) {
      const at = counts.get(stream) ?? 0;
      await store.append(stream, at, [{ type: 'Probe', version: 1, data: { n: at } }], { actor: 'test', correlationId: 'c' });
      counts.set(stream, at + 1);
    }
  }
  const arrived = (total: number) => waitFor(async () => (received.length >= total ? true : undefined), `${total} relayed events`);

  beforeAll(async () => {
    ({ url, drop } = await createTestDatabase());
    db = await openDatabase({ url, schema: 'registry', migrations: REGISTRY_MIGRATIONS, entities: REGISTRY_ENTITIES });
    store = new PostgresEventStore(db, randomUUID, () => new Date());
    subscription = await bus.subscribe({
      topic: TOPIC, groupId: 'watcher', fromBeginning: true,
      handle: async (m) => void received.push(JSON.parse(m.value ?? 'null') as EventEnvelope),
    });
    first = new OutboxRelay(db, url, bus, TOPIC, logger);
    second = new OutboxRelay(db, url, bus, TOPIC, logger);
    await first.start();
    await second.start();
  });

  afterAll(async () => {
    await first.stop();
    await second.stop();
    await subscription.stop();
    await db.destroy();
    await drop();
  });

  it('only one relay publishes: every event arrives exactly once', async () => {
    expect([first.leading, second.leading]).toEqual([true, false]);
    await Promise.all([append('tool:a', 15), append('tool:b', 15)]);
    await arrived(30);
    // A last event is the sync point: a duplicate of anything before it would have been sent before it.
    await append('tool:marker', 1);
    await arrived(31);
    expect(received).toHaveLength(31);
    expect(new Set(received.map((e) => e.id)).size).toBe(31);
  });

  it('the standby takes over when the leader stops, without resending what was sent', async () => {
    await first.stop();
    await append('tool:a', 5);
    await arrived(36);
    expect(second.leading).toBe(true);
    await append('tool:marker', 1);
    await arrived(37);
    expect(received).toHaveLength(37);
    expect(new Set(received.map((e) => e.id)).size).toBe(37);
    expect(received.filter((e) => e.stream === 'tool:a').map((e) => e.position)).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });
});
