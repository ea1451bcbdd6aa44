import { randomUUID } from 'node:crypto';
import type { CatalogEntry } from '@estate/events';
import { createLogger, KafkaEventBus, type BusMessage, type Subscription } from '@estate/platform';
import { waitFor } from '../../../test/support/estate.harness';
import { kafkaBrokers, randomTopicPrefix } from '../../../test/support/infra';
import { publishCatalogEntries } from './catalog.publisher';

/** Only the name and the size matter to the publisher. */
const entry = (name: string, bytes: number) => ({ name, versions: [{ blob: 'v'.repeat(bytes) }] }) as unknown as CatalogEntry;

describe('catalog entries larger than the catalog topic takes (real Kafka)', () => {
  const logger = createLogger('catalog-publisher', 'fatal');
  const seen: BusMessage[] = [];
  // A limit far below the declared one, so that one entry outgrows it as a tool with many large versions would.
  const topic = { name: `${randomTopicPrefix()}estate.catalog`, compacted: true, maxMessageBytes: 64 * 1024 };
  let bus: KafkaEventBus;
  let subscription: Subscription;

  beforeAll(async () => {
    bus = new KafkaEventBus({ brokers: kafkaBrokers(), clientId: 'catalog-publisher', logger });
    await bus.ensureTopics([topic]);
    subscription = await bus.subscribe({ topic: topic.name, groupId: `catalog-${randomUUID()}`, fromBeginning: true, handle: async (m) => void seen.push(m) });
  });

  afterAll(async () => {
    await subscription.stop();
    await bus.close();
  });

  it('publishes the others in batches the topic takes, and withdraws the oversized entry instead of failing forever', async () => {
    const entries = [entry('a.one', 20_000), entry('a.two', 20_000), entry('a.huge', 100_000), entry('a.three', 20_000), entry('a.four', 20_000)];
    await publishCatalogEntries(bus, topic.name, entries, 48 * 1024, logger);
    await waitFor(async () => (seen.length >= 5 ? true : undefined), 'five catalog records');
    expect(seen.map((m) => [m.key, m.value === null ? 'tombstone' : 'entry'])).toEqual([
      ['a.one', 'entry'], ['a.two', 'entry'], ['a.huge', 'tombstone'], ['a.three', 'entry'], ['a.four', 'entry'],
    ]);
  });
});
