import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { createTestDatabase } from '../../../../test/support/infra';
import { createLogger } from '../logger';
import { PostgresEventBus } from './postgres-event-bus';

const logger = createLogger('bus-test', 'silent');

/** Sends racing for one topic: compaction and offsets as a reader sees them once all committed. */
describe('PostgresEventBus sends racing for a topic (real PostgreSQL)', () => {
  let url: string;
  let drop: () => Promise<void>;
  const buses: PostgresEventBus[] = [];

  const newBus = () => {
    const bus = new PostgresEventBus({ url, logger });
    buses.push(bus);
    return bus;
  };
  const topicName = () => `t-${randomUUID()}`;
  const readAll = async (bus: PostgresEventBus, topic: string) => bus.readPage(topic, 0, '0', 10_000);

  beforeAll(async () => {
    ({ url, drop } = await createTestDatabase());
  });

  afterAll(async () => {
    for (const bus of buses) await bus.close();
    await drop();
  });

  it('keeps one message per key on a compacted topic when sends from separate connections race, each the newest of its key', async () => {
    const topic = topicName();
    const publishers = [newBus(), newBus(), newBus(), newBus()];
    await publishers[0].ensureTopics([{ name: topic, compacted: true }]);
    await Promise.all(publishers.flatMap((bus, p) => Array.from({ length: 15 }, (_, send) =>
      bus.publish(topic, ['a', 'b', 'a'].map((key, i) => ({ key, value: `${p}:${send}:${i}` }))))));
    const survivors = await readAll(publishers[0], topic);
    expect(survivors.map((m) => m.key).sort()).toEqual(['a', 'b']);
    // Every send reserved an offset per message, superseded ones included: 4 × 15 sends of 3.
    expect(await publishers[0].offsets(topic)).toEqual([{ partition: 0, low: '0', high: '180' }]);
    // The survivors came in one send (the last), a's second message and b: offsets last-2+1 and last-2+2.
    const last = Number(survivors[survivors.length - 1].offset);
    expect(survivors.map((m) => [Number(m.offset), m.key])).toEqual([[last - 1, 'b'], [last, 'a']]);
    expect(last).toBe(179);
  });

  it('deletes a message of the same key that another connection committed while the send waited for the topic', async () => {
    const bus = newBus();
    const topic = topicName();
    await bus.ensureTopics([{ name: topic, compacted: true }]);
    await bus.publish(topic, [{ key: 'a', value: 'first' }]);
    // Another publisher mid-send: it holds the topic's row and has written offset 1, not committed yet.
    const other = new Client({ connectionString: url });
    await other.connect();
    try {
      await other.query('BEGIN');
      await other.query(`UPDATE bus.topics SET next_offset = next_offset + 1 WHERE name = $1`, [topic]);
      await other.query(`INSERT INTO bus.messages (topic, "offset", key, value) VALUES ($1, 1, $2, $3)`, [topic, Buffer.from('a'), Buffer.from('second')]);
      const sent = bus.publish(topic, [{ key: 'a', value: 'third' }]);
      await waitForLockWaiter(other);
      await other.query('COMMIT');
      await sent;
    } finally {
      await other.end();
    }
    expect((await readAll(bus, topic)).map((m) => [m.offset, m.value])).toEqual([['2', 'third']]);
  });

  it('creates a topic nobody declared on its first sends, racing ones included, with dense offsets', async () => {
    const topic = topicName();
    const publishers = [newBus(), newBus(), newBus()];
    await Promise.all(publishers.map((bus, p) => bus.publish(topic, [{ key: `p${p}`, value: '0' }, { key: `p${p}`, value: '1' }])));
    await Promise.all(publishers.map((bus, p) => bus.publish(topic, [{ key: `p${p}`, value: '2' }])));
    const messages = await readAll(publishers[0], topic);
    expect(messages.map((m) => Number(m.offset))).toEqual(Array.from({ length: 9 }, (_, i) => i));
    for (const p of [0, 1, 2]) expect(messages.filter((m) => m.key === `p${p}`).map((m) => m.value)).toEqual(['0', '1', '2']);
  });
});

/** Until some session of this database waits for a lock (the send blocked on the topic's row). */
async function waitForLockWaiter(client: Client): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const { rows } = await client.query<{ waiting: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock') AS waiting`,
    );
    if (rows[0].waiting) return;
    if (Date.now() > deadline) throw new Error('no send waited for the topic lock');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
