import { Kafka, logLevel } from 'kafkajs';
import { createLogger, KafkaEventBus } from '@estate/platform';
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

  afterAll(async () => {
    await bus?.close().catch(() => undefined);
    await kafka?.stop();
  }, 60_000);

  it('fails the send made while the broker is down, then delivers the next one once it is back', async () => {
    await kafka.kill();
    await expect(bus.publish(topic, [{ key: 'k', value: 'during the outage' }])).rejects.toThrow();
    await kafka.start();
    await bus.publish(topic, [{ key: 'k', value: 'after the outage' }]);

    const reader = new Kafka({ clientId: 'bus-outage-reader', brokers: kafka.brokers, logLevel: logLevel.NOTHING }).admin();
    await reader.connect();
    try {
      const [partition] = await reader.fetchTopicOffsets(topic);
      expect(partition.high).toBe('1');
    } finally {
      await reader.disconnect();
    }
  }, 240_000);
});
