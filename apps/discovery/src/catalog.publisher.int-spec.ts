import { randomUUID } from 'node:crypto';
import type { CatalogEntry } from '@estate/events';
import { createLogger, KafkaEventBus, type BusMessage, type Subscription } from '@estate/platform';
import { waitFor } from '../../../test/support/estate.harness';
import { kafkaBrokers, randomTopicPrefix } from '../../../test/support/infra';
import { publishCatalogEntries } from './catalog.publisher';

/** Only the names, the versions and their size matter to the publisher. */
const entry = (name: string, bytes: number) => ({ name, upstream: { server: 's' }, position: 1, versions: [{ version: '1.0.0', blob: 'v'.repeat(bytes) }] }) as unknown as CatalogEntry;

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

  it('publishes the others in batches the topic takes, and withdraws the tool with an oversized version instead of failing forever', async () => {
    const entries = [entry('a.one', 20_000), entry('a.two', 20_000), entry('a.huge', 100_000), entry('a.three', 20_000), entry('a.four', 20_000)];
    await publishCatalogEntries(bus, topic.name, entries, 48 * 1024, logger);
    await waitFor(async () => (seen.length >= 11 ? true : undefined), 'eleven catalog records');
    // Each tool's version, then its head; the huge version's key and the tool's head are tombstoned, so
    // the head that follows names a version no edge holds and no edge serves a.huge.
    expect(seen.map((m) => [m.key, m.value === null ? 'tombstone' : (JSON.parse(m.value) as { kind: string }).kind])).toEqual([
      ['a.one@1.0.0', 'version'], ['a.one', 'head'], ['a.two@1.0.0', 'version'], ['a.two', 'head'],
      ['a.huge@1.0.0', 'tombstone'], ['a.huge', 'tombstone'], ['a.huge', 'head'],
      ['a.three@1.0.0', 'version'], ['a.three', 'head'], ['a.four@1.0.0', 'version'], ['a.four', 'head'],
    ]);
  });

  it('sends only the versions a change touched, then the head listing them all', async () => {
    const tool = { name: 'b.tool', upstream: { server: 's' }, position: 7, versions: ['1.0.0', '1.1.0', '1.2.0'].map((version) => ({ version })) } as unknown as CatalogEntry;
    const before = seen.length;
    await publishCatalogEntries(bus, topic.name, [tool], 48 * 1024, logger, undefined, () => new Set(['1.2.0']));
    await waitFor(async () => (seen.length >= before + 2 ? true : undefined), 'two catalog records');
    const sent = seen.slice(before);
    expect(sent.map((m) => m.key)).toEqual(['b.tool@1.2.0', 'b.tool']);
    expect(JSON.parse(sent[0].value as string)).toEqual({ kind: 'version', tool: 'b.tool', position: 7, version: { version: '1.2.0' } });
    expect(JSON.parse(sent[1].value as string)).toEqual({ kind: 'head', name: 'b.tool', upstream: { server: 's' }, versions: ['1.0.0', '1.1.0', '1.2.0'], position: 7 });
  });
});
