import { randomBytes } from 'node:crypto';
import { kafkaBrokers, randomTopicPrefix } from '../../../../test/support/infra';
import { KafkaEventBus } from '../kafka-event-bus';
import { createLogger } from '../logger';
import { ConsumerMonitor } from './consumer.monitor';

const waitUntil = async (probe: () => Promise<boolean>, what: string) => {
  const deadline = Date.now() + 30_000;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};

describe('ConsumerMonitor on Kafka', () => {
  const logger = createLogger('monitor-int', 'error');
  let bus: KafkaEventBus;

  beforeAll(() => {
    bus = new KafkaEventBus({ brokers: kafkaBrokers(), clientId: 'monitor-int', logger });
  });
  afterAll(() => bus.close());

  it('knows a restarted group is caught up before its first message, from the offsets Kafka holds for it', async () => {
    const topic = `${randomTopicPrefix()}monitored`;
    const groupId = `monitor-${randomBytes(4).toString('hex')}`;
    await bus.ensureTopics([{ name: topic }]);
    await bus.publish(topic, [1, 2, 3].map((i) => ({ key: `k${i}`, value: `v${i}` })));
    let seen = 0;
    const first = await bus.subscribe({ topic, groupId, fromBeginning: true, handle: async () => void (seen += 1) });
    await waitUntil(async () => seen === 3, 'the first run to read three messages');
    await first.stop();
    expect(await bus.committed(groupId, topic)).toEqual(new Map([[0, '3']]));
    expect(await bus.committed(`${groupId}-never`, topic)).toEqual(new Map());

    const monitor = new ConsumerMonitor(bus, { maxLag: 0, stallMs: 60_000, cacheMs: 0 });
    const again = await monitor.watch(bus, () => 'reader').subscribe({ topic, groupId, fromBeginning: true, handle: async () => undefined });
    try {
      const [report] = await monitor.report();
      expect(report.partitions).toEqual([expect.objectContaining({ partition: 0, position: '3', end: '3', lag: 0, lastAppliedOffset: null })]);
      await bus.publish(topic, [{ key: 'k4', value: 'v4' }]);
      await waitUntil(async () => (await monitor.report())[0].partitions[0].lastAppliedOffset === '3', 'the fourth message to be handled');
    } finally {
      await again.stop();
    }
  }, 60_000);
});
