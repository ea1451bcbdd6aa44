import { ConfigResourceTypes, Kafka, logLevel } from 'kafkajs';
import { kafkaBrokers, randomTopicPrefix } from '../../../test/support/infra';
import { KafkaEventBus } from './kafka-event-bus';
import { createLogger } from './logger';
import { estateTopics } from './topic.specs';

describe('declared topic configuration (real Kafka)', () => {
  const logger = createLogger('topic-configs-int', 'silent');
  const admin = new Kafka({ clientId: 'topic-configs-int', brokers: kafkaBrokers(), logLevel: logLevel.NOTHING }).admin();
  const bus = new KafkaEventBus({ brokers: kafkaBrokers(), clientId: 'topic-configs-int', logger });

  beforeAll(() => admin.connect());
  afterAll(async () => {
    await bus.close();
    await admin.disconnect();
  });

  const configsOf = async (topic: string): Promise<Record<string, string | null>> => {
    const { resources } = await admin.describeConfigs({ includeSynonyms: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: topic }] });
    return Object.fromEntries(resources[0].configEntries.map((e) => [e.configName, e.configValue]));
  };

  it('creates each topic with its declared retention and cleanup policy', async () => {
    const specs = estateTopics(randomTopicPrefix(), 3_600_000);
    await bus.ensureTopics([specs.registryEvents, specs.catalog, specs.calls]);
    expect(await configsOf(specs.registryEvents.name)).toMatchObject({
      'retention.ms': '-1', 'retention.bytes': '-1', 'cleanup.policy': 'delete', 'max.message.bytes': String(2 * 1024 * 1024 + 64 * 1024),
    });
    expect(await configsOf(specs.catalog.name)).toMatchObject({ 'cleanup.policy': 'compact' });
    expect(await configsOf(specs.calls.name)).toMatchObject({ 'retention.ms': '3600000', 'cleanup.policy': 'delete' });
  });

  it('corrects an existing registry log that would age out or refuse large events, keeping settings it does not declare', async () => {
    const specs = estateTopics(randomTopicPrefix(), 3_600_000);
    const topic = specs.registryEvents.name;
    await admin.createTopics({
      waitForLeaders: true,
      topics: [{ topic, numPartitions: 1, configEntries: [
        { name: 'retention.ms', value: '604800000' }, { name: 'max.message.bytes', value: '1000000' }, { name: 'segment.ms', value: '86400000' },
      ] }],
    });
    await bus.ensureTopics([specs.registryEvents]);
    expect(await configsOf(topic)).toMatchObject({
      'retention.ms': '-1', 'retention.bytes': '-1', 'max.message.bytes': String(2 * 1024 * 1024 + 64 * 1024), 'segment.ms': '86400000',
    });
  });

  it('creates a declared topic again, with its configuration, when a publish finds it gone', async () => {
    const specs = estateTopics(randomTopicPrefix(), 3_600_000);
    await bus.ensureTopics([specs.catalog]);
    await admin.deleteTopics({ topics: [specs.catalog.name] });
    await bus.publish(specs.catalog.name, [{ key: 'a', value: '{}' }]);
    expect(await configsOf(specs.catalog.name)).toMatchObject({ 'cleanup.policy': 'compact' });
    expect((await bus.offsets(specs.catalog.name))[0].high).toBe('1');
  });

  it('reports no partitions for a topic that does not exist', async () => {
    expect(await bus.offsets(`${randomTopicPrefix()}missing`)).toEqual([]);
  });
});
