import { InMemoryEventBus, type PartitionOffsets } from '@estate/platform';
import type { CatalogEntry, CatalogVersion } from '@estate/events';
import { publishCatalogEntries } from './catalog.publisher';
import { catalogTopicDifferences, readCatalogTopic } from './catalog-topic.check';
import { CatalogTopicWatch } from './catalog-topic.watch';

const TOPIC = 'estate.catalog';
const silent = { error: () => undefined } as never;

const version = (v: string, status: CatalogVersion['status'] = 'active'): CatalogVersion =>
  ({ version: v, status, quarantined: false, spec: { name: 'pay.lookup', version: v }, publishedAt: '2026-01-01T00:00:00.000Z' }) as unknown as CatalogVersion;
const entry = (name: string, position: number, versions: CatalogVersion[]): CatalogEntry =>
  ({ name, position, upstream: { server: 'pay', transport: 'streamable-http', url: 'http://127.0.0.1:1/mcp', allowSampling: false, allowElicitation: false }, versions });

/** The topic as discovery leaves it after publishing `entries`, then `more` records of anyone's. */
async function topicAfter(entries: CatalogEntry[], more: Array<{ key: string; value: string | null }> = []) {
  const bus = new InMemoryEventBus();
  await publishCatalogEntries(bus, TOPIC, entries, 1_000_000, silent);
  if (more.length > 0) await bus.publish(TOPIC, more);
  return (await readCatalogTopic(bus, TOPIC))!.latest;
}

describe('the catalog topic against the catalog (what a new edge reads)', () => {
  const lookup = entry('pay.lookup', 2, [version('1.0.0'), version('1.1.0')]);
  const transfer = entry('pay.transfer', 0, [version('1.0.0')]);

  it('finds no difference in a topic discovery published the catalog to', async () => {
    expect(catalogTopicDifferences([lookup, transfer], await topicAfter([lookup, transfer]))).toEqual([]);
  });

  it('ignores the position of a version record that did not change since (only its version is compared)', async () => {
    const older = entry('pay.lookup', 1, [version('1.0.0')]);
    const latest = await topicAfter([older]);
    // The head and the new version go out; 1.0.0's record keeps position 1.
    const bus = new InMemoryEventBus();
    await bus.publish(TOPIC, [...latest].map(([key, value]) => ({ key, value })));
    await publishCatalogEntries(bus, TOPIC, [lookup], 1_000_000, silent, undefined, () => new Set(['1.1.0']));
    expect(catalogTopicDifferences([lookup], (await readCatalogTopic(bus, TOPIC))!.latest)).toEqual([]);
  });

  it('names a tool whose head is missing, withdrawn or stale, a missing or different version, and a head the catalog lacks', async () => {
    const deprecated = entry('pay.lookup', 3, [version('1.0.0', 'deprecated'), version('1.1.0')]);
    const latest = await topicAfter([lookup, transfer, entry('pay.gone', 0, [version('1.0.0')])], [{ key: 'pay.transfer', value: null }]);
    expect(catalogTopicDifferences([deprecated, transfer, entry('pay.new', 0, [version('1.0.0')])], latest)).toEqual([
      'tool pay.gone: on the topic, not in the catalog',
      'tool pay.lookup: its head record on the topic differs from the catalog',
      'tool pay.lookup: version 1.0.0 on the topic differs from the catalog',
      'tool pay.new: no head record on the topic, so no edge serves it',
      'tool pay.transfer: withdrawn (a tombstone) on the topic, so no edge serves it',
    ]);
  });
});

describe('the catalog topic watch', () => {
  /** A bus whose offsets the test sets, as a broker would report them after a deletion or a truncation. */
  const broker = (offsets: PartitionOffsets[]) => ({ offsets: async () => offsets });
  const sink = { publish: async () => undefined };

  it('takes what was sent since its last look into account, and records sent by others', async () => {
    const log = [{ partition: 0, low: '0', high: '10' }];
    const watch = new CatalogTopicWatch(broker(log), TOPIC);
    await watch.settle();
    await watch.counting(sink).publish(TOPIC, [{ key: 'a', value: '1' }, { key: 'a@1', value: '2' }]);
    log[0] = { partition: 0, low: '0', high: '13' };
    expect(await watch.lost()).toBeUndefined();
  });

  it('says the topic lost what was sent when it is gone, holds fewer records than were sent, or starts later', async () => {
    const log: PartitionOffsets[] = [{ partition: 0, low: '0', high: '10' }];
    const watch = new CatalogTopicWatch(broker(log), TOPIC);
    await watch.settle();
    await watch.counting(sink).publish(TOPIC, [{ key: 'a', value: '1' }, { key: 'b', value: '1' }]);
    log[0] = { partition: 0, low: '0', high: '11' };
    expect(await watch.lost()).toBe('holds 11 records where discovery had put 12');
    log[0] = { partition: 0, low: '4', high: '12' };
    expect(await watch.lost()).toBe('starts at offset 4, no longer at 0');
    log.pop();
    expect(await watch.lost()).toBe('no longer exists');
  });
});
