import { Kafka, logLevel } from 'kafkajs';
import { createLogger, KafkaEventBus } from '@estate/platform';
import { waitFor } from './support/estate.harness';
import { startPrivateKafka, type PrivateKafka } from './support/private-kafka';

/**
 * A service may send its first message while the broker is away: the edge's first call records,
 * discovery's first catalog change, the relay's first event after a quiet start. The bus must send
 * once the broker is back, not keep failing on the connection it could not open.
 */
describe('the Kafka bus after a first send during a broker outage (a private broker)', () => {
  let kafka: PrivateKafka;
  let bus: KafkaEventBus;
  const topic = 'outage.first-send';

  beforeAll(async () => {
    kafka = await startPrivateKafka();
    bus = new KafkaEventBus({ brokers: kafka.brokers, clientId: 'bus-outage', logger: createLogger('bus-outage', 'silent') });
    await bus.ensureTopics([{ name: topic, partitions: 1 }]);
  }, 180_000);

  /** How many messages the topic's one partition holds, asked of the broker by a client of the test's own. */
  const messagesIn = async (name: string): Promise<number> => {
    const reader = new Kafka({ clientId: 'bus-outage-reader', brokers: kafka.brokers, logLevel: logLevel.NOTHING }).admin();
    await reader.connect();
    try {
      const [partition] = await reader.fetchTopicOffsets(name);
      return Number(partition.high);
    } finally {
      await reader.disconnect();
    }
  };

  afterAll(async () => {
    await bus?.close().catch(() => undefined);
    await kafka?.stop();
  }, 60_000);

  it('fails the send made while the broker is down, then delivers the next one once it is back', async () => {
    // A second bus whose only send fails: it must still close (a service stopping during the outage).
    const other = new KafkaEventBus({ brokers: kafka.brokers, clientId: 'bus-outage-other', logger: createLogger('bus-outage', 'silent') });
    await kafka.kill();
    await Promise.all([
      expect(bus.publish(topic, [{ key: 'k', value: 'during the outage' }])).rejects.toThrow(),
      expect(other.publish(topic, [{ key: 'k', value: 'during the outage' }])).rejects.toThrow(),
    ]);
    await expect(other.close()).resolves.toBeUndefined();
    await kafka.start();
    await bus.publish(topic, [{ key: 'k', value: 'after the outage' }]);

    expect(await messagesIn(topic)).toBe(1);
  }, 240_000);

  it('keeps sending after the broker lost its data (wiped and restarted), with the topic declared again', async () => {
    for (let i = 0; i < 3; i += 1) await bus.publish(topic, [{ key: 'k', value: `before the wipe ${i}` }]);
    await kafka.wipeAndRestart();
    // A send may still be refused while the broker settles; the bus must not stay refused.
    const refusals: string[] = [];
    for (let attempt = 0; ; attempt += 1) {
      try {
        await bus.publish(topic, [{ key: 'k', value: 'after the wipe' }]);
        break;
      } catch (error) {
        refusals.push(String(error));
        if (attempt >= 5) throw new Error(`still refused after the wipe: ${refusals.join(' | ')}`);
      }
    }
    expect(await messagesIn(topic)).toBe(1);
  }, 240_000);

  it('keeps a subscription stopped during an outage stopped once the broker is back (kafkajs restarts crashed consumers)', async () => {
    const stoppedTopic = 'outage.stopped-subscriber';
    const group = 'outage.stopped-subscriber';
    await bus.ensureTopics([{ name: stoppedTopic, partitions: 1 }]);
    const lines: string[] = [];
    const logger = createLogger('bus-outage', 'warn', { destination: { write: (line: string) => void lines.push(line) } });
    const watched = new KafkaEventBus({ brokers: kafka.brokers, clientId: 'bus-outage-watched', logger });
    const received: string[] = [];
    const subscription = await watched.subscribe({
      topic: stoppedTopic, groupId: group, fromBeginning: true, handle: async (message) => void received.push(String(message.value)),
    });
    try {
      await bus.publish(stoppedTopic, [{ key: 'k', value: 'before the outage' }]);
      await waitFor(async () => (received.length === 1 ? true : undefined), 'the subscriber to receive the first message', 60_000);
      await kafka.kill();
      // The consumer crashes and kafkajs starts it again on a timer; stop it while it is rejoining.
      await waitFor(async () => (lines.some((l) => l.includes('Restarting the consumer') && l.includes(group)) ? true : undefined), 'the consumer to crash and restart', 90_000);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      await subscription.stop();
      await kafka.start();
      await bus.publish(stoppedTopic, [{ key: 'k', value: 'after the stop' }]);
      // Several restart periods (each under 5 s) and a join: a consumer that came back would have read it by now.
      await new Promise((resolve) => setTimeout(resolve, 15_000));
      expect(received).toEqual(['before the outage']);
      const admin = new Kafka({ clientId: 'bus-outage-groups', brokers: kafka.brokers, logLevel: logLevel.NOTHING }).admin();
      await admin.connect();
      try {
        const { groups } = await admin.describeGroups([group]);
        expect(groups[0]?.members ?? []).toEqual([]);
      } finally {
        await admin.disconnect();
      }
    } finally {
      await watched.close();
    }
  }, 300_000);
});
