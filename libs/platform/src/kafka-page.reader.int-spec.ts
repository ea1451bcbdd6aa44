import { Kafka, logLevel } from 'kafkajs';
import { kafkaBrokers, randomTopicPrefix } from '../../../test/support/infra';
import type { BusMessage } from './event-bus.port';
import { KafkaEventBus } from './kafka-event-bus';
import { createLogger } from './logger';

describe('reading a Kafka partition in pages outside any group (real Kafka)', () => {
  const logger = createLogger('kafka-page-int', 'silent');
  const admin = new Kafka({ clientId: 'kafka-page-int', brokers: kafkaBrokers(), logLevel: logLevel.NOTHING }).admin();
  const bus = new KafkaEventBus({ brokers: kafkaBrokers(), clientId: 'kafka-page-int', logger });
  const topic = `${randomTopicPrefix()}pages`;

  beforeAll(async () => {
    await admin.connect();
    await bus.ensureTopics([{ name: topic, partitions: 2 }]);
  });
  afterAll(async () => {
    await bus.close();
    await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
    await admin.disconnect();
  });

  it('returns every message of a partition once, in offset order, with key, value and headers, in pages of at most the limit', async () => {
    // 3,000 messages of 1 KB in batches of 100: more than one fetch's worth, in many record batches.
    const filler = 'x'.repeat(1000);
    for (let b = 0; b < 30; b += 1) {
      await bus.publish(topic, Array.from({ length: 100 }, (_, i) => ({ key: `k${(b * 100 + i) % 7}`, value: `${b * 100 + i}:${filler}`, headers: { 'estate-id': `id-${b * 100 + i}` } })));
    }
    const offsets = await bus.offsets(topic);
    expect(offsets.reduce((sum, p) => sum + Number(p.high), 0)).toBe(3000);
    const read: BusMessage[] = [];
    for (const { partition, high } of offsets) {
      const pageSizes: number[] = [];
      for (let next = 0n; next < BigInt(high);) {
        const page = await bus.readPage!(topic, partition, String(next), 700);
        expect(page.length).toBeGreaterThan(0);
        expect(page.length).toBeLessThanOrEqual(700);
        pageSizes.push(page.length);
        expect(page.map((m) => BigInt(m.offset))).toEqual(page.map((_, i) => next + BigInt(i)));
        next += BigInt(page.length);
        read.push(...page);
      }
      expect(pageSizes.length).toBeGreaterThan(1);
      expect(await bus.readPage!(topic, partition, high, 700)).toEqual([]);
    }
    const sent = read.map((m) => Number((m.value ?? '').split(':')[0])).sort((a, b) => a - b);
    expect(sent).toEqual(Array.from({ length: 3000 }, (_, i) => i));
    for (const m of read.slice(0, 50)) {
      const n = Number((m.value ?? '').split(':')[0]);
      expect(m).toMatchObject({ topic, key: `k${n % 7}`, headers: { 'estate-id': `id-${n}` } });
    }
  });

  it('starts a page at the offset asked for, even inside a record batch', async () => {
    const [{ partition }] = (await bus.offsets(topic)).filter((p) => BigInt(p.high) > 10n);
    const page = await bus.readPage!(topic, partition, '5', 3);
    expect(page.map((m) => m.offset)).toEqual(['5', '6', '7']);
  });
});
