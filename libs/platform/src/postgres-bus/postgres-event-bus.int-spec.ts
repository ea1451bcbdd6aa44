import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { createTestDatabase } from '../../../../test/support/infra';
import type { BusMessage, OutgoingMessage, SubscribeOptions, Subscription } from '../event-bus.port';
import { createLogger } from '../logger';
import { PostgresEventBus } from './postgres-event-bus';

const logger = createLogger('bus-test', 'silent');

function until(check: () => boolean, what: string, timeoutMs = 10000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const tick = () => {
      if (check()) return resolve();
      if (Date.now() > deadline) return reject(new Error(`timed out waiting for ${what}`));
      setTimeout(tick, 20);
    };
    tick();
  });
}

const messages = (key: string, values: string[]): OutgoingMessage[] => values.map((value) => ({ key, value }));

describe('PostgresEventBus (real PostgreSQL)', () => {
  let url: string;
  let drop: () => Promise<void>;
  const buses: PostgresEventBus[] = [];
  const subscriptions: Subscription[] = [];

  const newBus = () => {
    const bus = new PostgresEventBus({ url, logger });
    buses.push(bus);
    return bus;
  };
  const topicName = () => `t-${randomUUID()}`;
  const collect = async (bus: PostgresEventBus, options: Omit<SubscribeOptions, 'handle'> & { handle?: SubscribeOptions['handle'] }) => {
    const received: BusMessage[] = [];
    const subscription = await bus.subscribe({
      ...options,
      handle: async (m) => {
        await options.handle?.(m);
        received.push(m);
      },
    });
    subscriptions.push(subscription);
    return { received, subscription };
  };

  beforeAll(async () => {
    ({ url, drop } = await createTestDatabase());
  });

  afterAll(async () => {
    for (const s of subscriptions) await s.stop();
    for (const bus of buses) await bus.close();
    await drop();
  });

  it('delivers in offset order with dense offsets, and keeps any string byte for byte', async () => {
    const bus = newBus();
    const topic = topicName();
    await bus.ensureTopics([{ name: topic }]);
    const odd = ['nul \u0000 inside', 'emoji 🧾 and ü', '', '{"json":true}'];
    await bus.publish(topic, [{ key: 'k\u0000ey', value: odd[0], headers: { 'estate-id': 'a\u0000b' } }]);
    await bus.publish(topic, [...messages('k', odd.slice(1)), { key: 'k', value: null }]);
    const { received } = await collect(bus, { topic, groupId: `g-${randomUUID()}`, fromBeginning: true });
    await until(() => received.length === 5, 'five messages');
    expect(received.map((m) => [m.offset, m.partition, m.value])).toEqual([['0', 0, odd[0]], ['1', 0, odd[1]], ['2', 0, odd[2]], ['3', 0, odd[3]], ['4', 0, null]]);
    expect(received[0]).toMatchObject({ topic, key: 'k\u0000ey', headers: { 'estate-id': 'a\u0000b' } });
    expect(received[1].headers).toEqual({});
  });

  it('reports low and high offsets: the log start and the next offset to be written', async () => {
    const bus = newBus();
    const topic = topicName();
    await bus.ensureTopics([{ name: topic }]);
    expect(await bus.offsets(topic)).toEqual([{ partition: 0, low: '0', high: '0' }]);
    await bus.publish(topic, messages('k', ['a', 'b', 'c']));
    expect(await bus.offsets(topic)).toEqual([{ partition: 0, low: '0', high: '3' }]);
    expect(await bus.offsets(topicName())).toEqual([{ partition: 0, low: '0', high: '0' }]);
  });

  it('keeps a group position across bus instances: a new process resumes after the last handled message', async () => {
    const topic = topicName();
    const groupId = `g-${randomUUID()}`;
    const first = newBus();
    await first.ensureTopics([{ name: topic }]);
    await first.publish(topic, messages('k', ['1', '2', '3']));
    const before = await collect(first, { topic, groupId, fromBeginning: true });
    await until(() => before.received.length === 3, 'the first three');
    await first.close();

    await newBus().publish(topic, messages('k', ['4', '5']));
    const later = await collect(newBus(), { topic, groupId, fromBeginning: true });
    await until(() => later.received.length === 2, 'the two new ones');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(later.received.map((m) => [m.offset, m.value])).toEqual([['3', '4'], ['4', '5']]);
  });

  it('starts a new group at the end of the log unless it asks for the beginning', async () => {
    const bus = newBus();
    const topic = topicName();
    await bus.publish(topic, messages('k', ['old']));
    const { received } = await collect(bus, { topic, groupId: `g-${randomUUID()}`, fromBeginning: false });
    await bus.publish(topic, messages('k', ['new']));
    await until(() => received.length === 1, 'the new message');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(received.map((m) => m.value)).toEqual(['new']);
  });

  it('gives a topic to one member of a group at a time; a standby takes over from the committed position', async () => {
    const topic = topicName();
    const groupId = `g-${randomUUID()}`;
    const first = newBus();
    const second = newBus();
    await first.publish(topic, messages('k', ['1', '2', '3']));
    const member = await collect(first, { topic, groupId, fromBeginning: true });
    await until(() => member.received.length === 3, 'the member to read three');
    const standby = await collect(second, { topic, groupId, fromBeginning: true });
    const sameBus = await collect(first, { topic, groupId, fromBeginning: true });
    await first.publish(topic, messages('k', ['4']));
    await until(() => member.received.length === 4, 'the member to read the fourth');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(standby.received).toEqual([]);
    expect(sameBus.received).toEqual([]);

    await member.subscription.stop();
    await sameBus.subscription.stop();
    await second.publish(topic, messages('k', ['5']));
    await until(() => standby.received.length === 1, 'the standby to take over', 10000);
    expect(standby.received.map((m) => [m.offset, m.value])).toEqual([['4', '5']]);
  });

  it('seeks consumers with their own offsets there and commits nothing for them', async () => {
    const bus = newBus();
    const topic = topicName();
    const groupId = `g-${randomUUID()}`;
    await bus.publish(topic, messages('k', ['0', '1', '2', '3']));
    const own = await collect(bus, { topic, groupId, fromBeginning: true, ownOffsets: async () => '2' });
    await until(() => own.received.length === 2, 'offsets 2 and 3');
    expect(own.received.map((m) => m.offset)).toEqual(['2', '3']);
    await own.subscription.stop();
    // Nothing was committed for the group, so the same group without own offsets starts from the beginning.
    const plain = await collect(bus, { topic, groupId, fromBeginning: true });
    await until(() => plain.received.length === 4, 'all four');
    expect(plain.received.map((m) => m.offset)).toEqual(['0', '1', '2', '3']);
  });

  it('retries a failing handler on the same message and never skips it', async () => {
    const bus = newBus();
    const topic = topicName();
    await bus.publish(topic, messages('k', ['a', 'b', 'c']));
    const attempts: string[] = [];
    let failures = 2;
    const { received } = await collect(bus, {
      topic, groupId: `g-${randomUUID()}`, fromBeginning: true,
      handle: async (m) => {
        attempts.push(m.value ?? '');
        if (m.value === 'b' && failures > 0) {
          failures -= 1;
          throw new Error('transient');
        }
      },
    });
    await until(() => received.length === 3, 'all three after the retries');
    expect(attempts).toEqual(['a', 'b', 'b', 'b', 'c']);
    expect(received.map((m) => m.value)).toEqual(['a', 'b', 'c']);
  });

  it('keeps only the newest message per key on a compacted topic, tombstones included', async () => {
    const bus = newBus();
    const topic = topicName();
    await bus.ensureTopics([{ name: topic, compacted: true }]);
    await bus.publish(topic, [{ key: 'a', value: 'a1' }, { key: 'b', value: 'b1' }, { key: 'a', value: 'a2' }]);
    await bus.publish(topic, [{ key: 'c', value: 'c1' }, { key: 'b', value: null }, { key: 'a', value: 'a3' }]);
    const { received } = await collect(bus, { topic, groupId: `g-${randomUUID()}`, fromBeginning: true });
    await until(() => received.length === 3, 'the three survivors');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(received.map((m) => [m.offset, m.key, m.value])).toEqual([['3', 'c', 'c1'], ['4', 'b', null], ['5', 'a', 'a3']]);
    expect(await bus.offsets(topic)).toEqual([{ partition: 0, low: '0', high: '6' }]);
  });

  it('reads a log page by page outside any group, and reads past a compacted topic\'s gaps larger than a page', async () => {
    const bus = newBus();
    const [log, compacted] = [topicName(), topicName()];
    await bus.ensureTopics([{ name: log }, { name: compacted, compacted: true }]);
    await bus.publish(log, messages('k', Array.from({ length: 25 }, (_, i) => `m${i}`)));
    const pages: string[][] = [];
    for (let next = 0; next < 25; next += 10) pages.push((await bus.readPage(log, 0, String(next), 10)).map((m) => `${m.offset}:${m.value}`));
    expect(pages.map((p) => p.length)).toEqual([10, 10, 5]);
    expect(pages.flat()).toEqual(Array.from({ length: 25 }, (_, i) => `${i}:m${i}`));
    // Twenty superseded values of one key leave a gap of twenty offsets before the survivors.
    await bus.publish(compacted, [...messages('a', Array.from({ length: 21 }, (_, i) => `a${i}`)), ...messages('b', ['b0'])]);
    expect((await bus.readPage(compacted, 0, '0', 5)).map((m) => [m.offset, m.value])).toEqual([['20', 'a20'], ['21', 'b0']]);
  });

  it('never gives concurrent publishers on separate connections the same offset, and keeps each key in order', async () => {
    const topic = topicName();
    const publishers = [newBus(), newBus(), newBus()];
    await publishers[0].ensureTopics([{ name: topic }]);
    await Promise.all(publishers.flatMap((bus, p) => Array.from({ length: 10 }, (_, batch) =>
      bus.publish(topic, Array.from({ length: 5 }, (__, i) => ({ key: `p${p}`, value: `${p}:${batch * 5 + i}` }))))));
    const { received } = await collect(newBus(), { topic, groupId: `g-${randomUUID()}`, fromBeginning: true });
    await until(() => received.length === 150, 'all 150');
    expect(received.map((m) => Number(m.offset))).toEqual(Array.from({ length: 150 }, (_, i) => i));
    for (const key of ['p0', 'p1', 'p2']) {
      const sequence = received.filter((m) => m.key === key).map((m) => Number((m.value ?? '').split(':')[1]));
      // One publisher's batches may interleave, but each batch is contiguous and kept whole.
      expect([...sequence].sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i));
      for (let i = 0; i < sequence.length; i += 5) expect(sequence.slice(i, i + 5)).toEqual(Array.from({ length: 5 }, (_, j) => sequence[i] + j));
    }
  });

  it('wakes a consumer in another process through NOTIFY, well before the slow poll', async () => {
    const topic = topicName();
    const reader = newBus();
    const writer = newBus();
    await writer.ensureTopics([{ name: topic }]);
    await writer.publish(topic, messages('k', ['warm-up']));
    const { received } = await collect(reader, { topic, groupId: `g-${randomUUID()}`, fromBeginning: true });
    await until(() => received.length === 1, 'the warm-up');
    const latencies: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      const sent = Date.now();
      await writer.publish(topic, messages('k', [`n${i}`]));
      await until(() => received.length === i + 2, `message ${i}`);
      latencies.push(Date.now() - sent);
    }
    expect(Math.min(...latencies)).toBeLessThan(1000);
  });

  it('stops promptly, even with a handler that keeps failing, and lets go of its LISTEN session', async () => {
    const listening = async () => {
      const admin = new Client({ connectionString: url });
      await admin.connect();
      try {
        const { rows } = await admin.query<{ n: string }>(`SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'LISTEN%'`);
        return Number(rows[0].n);
      } finally {
        await admin.end();
      }
    };
    const bus = new PostgresEventBus({ url, logger });
    const topic = topicName();
    await bus.publish(topic, messages('k', ['poison']));
    await bus.subscribe({ topic, groupId: `g-${randomUUID()}`, fromBeginning: true, handle: async () => { throw new Error('always'); } });
    await bus.subscribe({ topic: topicName(), groupId: `g-${randomUUID()}`, fromBeginning: true, handle: async () => undefined });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const before = await listening();
    const started = Date.now();
    await bus.close();
    expect(Date.now() - started).toBeLessThan(1000);
    expect(await listening()).toBe(before - 1);
    await expect(bus.publish(topic, messages('k', ['late']))).rejects.toThrow('closed');
  });

  it('keeps consuming after every connection of the database was cut (a PostgreSQL restart, as the buses see it)', async () => {
    const topic = topicName();
    const reader = newBus();
    const writer = newBus();
    await writer.publish(topic, messages('k', ['before']));
    const { received } = await collect(reader, { topic, groupId: `g-${randomUUID()}`, fromBeginning: true });
    await until(() => received.length === 1, 'the first message');
    const admin = new Client({ connectionString: url });
    await admin.connect();
    try {
      const { rows } = await admin.query<{ n: number }>(
        `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`,
      );
      expect(rows[0].n).toBeGreaterThanOrEqual(3);
    } finally {
      await admin.end();
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (let attempt = 1; ; attempt += 1) {
      try {
        await writer.publish(topic, messages('k', ['after']));
        break;
      } catch (error) {
        // A pooled connection cut under the writer fails once; the pool then opens a new one.
        if (attempt >= 5) throw error;
      }
    }
    await until(() => received.length === 2, 'the message published after the cut', 15000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(received.map((m) => [m.offset, m.value])).toEqual([['0', 'before'], ['1', 'after']]);
  });
});
