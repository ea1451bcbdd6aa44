import type { EventEnvelope } from '@estate/events';
import { createLogger, InMemoryEventBus, type EventBus } from '@estate/platform';
import { bankSpecs } from '../../../examples/bank/bank.specs';
import { batches, registryLog } from '../../../bench/support/registry-log.fixture';
import { CatalogRebuilder, RebuildTimeout, RebuildUnavailable, type RegistryEventSource } from './catalog.rebuilder';

const [lookup] = bankSpecs('pay');
const published = (position: number, version: string): EventEnvelope => ({
  id: `e${position}`, type: 'ToolVersionPublished', version: 1, stream: 'tool:pay.lookup', position, occurredAt: '2026-01-01T00:00:00.000Z',
  actor: 't', correlationId: 'c', data: { spec: { ...lookup, version }, bump: position === 0 ? 'initial' : 'minor', changes: [] },
});

/** The event store as the registry's endpoint serves it, in memory. */
const storeOf = (events: EventEnvelope[]): RegistryEventSource => ({
  count: async () => events.length,
  read: async (after, limit) => ({ events: events.slice(Number(after), Number(after) + limit), next: String(Math.min(events.length, Number(after) + limit)) }),
});

const logger = createLogger('rebuilder-spec', 'silent');

describe('rebuilding the catalog aside', () => {
  it('fails with a timeout, instead of waiting forever, when the log never delivers up to its end', async () => {
    const log = new InMemoryEventBus();
    await log.publish('events', [{ key: 'k', value: '{}' }, { key: 'k', value: '{}' }]);
    // The one fault a real broker cannot be made to produce on demand: a consumer that never receives anything.
    const stalled: EventBus = {
      ensureTopics: (t) => log.ensureTopics(t), publish: (t, m) => log.publish(t, m), offsets: (t) => log.offsets(t), close: () => log.close(),
      subscribe: async () => ({ stop: async () => undefined }),
    };
    const started = Date.now();
    const rebuild = new CatalogRebuilder(stalled, 'events', 'g', logger, { timeoutMs: 300 }).fold(0);
    await expect(rebuild).rejects.toBeInstanceOf(RebuildTimeout);
    await expect(rebuild).rejects.toThrow(/did not finish within 0.3 s \(read 0 of 2 messages from the log\); the catalog was left as it was/);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('folds the event store instead of a log where an event comes before its predecessors (a log refilled after a loss)', async () => {
    const log = new InMemoryEventBus();
    // A batch in flight when the log was lost landed first; the relay then sent the whole store again.
    await log.publish('events', [published(1, '1.1.0'), published(0, '1.0.0'), published(1, '1.1.0')].map((e) => ({ key: e.stream, value: JSON.stringify(e) })));
    const folded = await new CatalogRebuilder(log, 'events', 'g', logger, { source: storeOf([published(0, '1.0.0'), published(1, '1.1.0')]) }).fold(0);
    expect(folded.source).toBe('event store');
    expect(folded.projection.tools.get('pay.lookup')?.versions.map((v) => v.version)).toEqual(['1.0.0', '1.1.0']);
  });

  it('refuses to fold a log holding fewer events than the catalog applied when it has no event store to read', async () => {
    const log = new InMemoryEventBus();
    await log.publish('events', [{ key: 'k', value: '{}' }]);
    await expect(new CatalogRebuilder(log, 'events', 'g', logger, {}).fold(5)).rejects.toBeInstanceOf(RebuildUnavailable);
  });

  it('folds a log longer than a page, page by page, into the catalog a fold of the event store gives, reporting progress per page', async () => {
    const log = new InMemoryEventBus();
    const events = [...registryLog(23_000)];
    for (const batch of batches(events, 5000)) await log.publish('events', batch.map((e) => ({ key: e.stream, value: JSON.stringify(e) })));
    const progress: number[] = [];
    const watch = { started: () => undefined, finished: () => undefined, progress: (read: number) => void progress.push(read) };
    const fromLog = await new CatalogRebuilder(log, 'events', 'g', logger, { watch }).fold(0);
    const fromStore = await new CatalogRebuilder(new InMemoryEventBus(), 'events', 'g', logger, { source: storeOf(events) }).foldFromStore();
    expect(fromLog).toMatchObject({ source: 'log', events: 23_000 });
    expect(fromLog.projection.tools.size).toBe(1000);
    expect([...fromLog.projection.tools.values()]).toEqual([...fromStore.projection.tools.values()]);
    expect(fromLog.projection.tools.get('bench.t7')?.versions.map((v) => [v.version, v.status])).toEqual(['1.0.0', '1.1.0', '1.2.0', '1.3.0', '1.4.0'].map((v) => [v, 'deprecated']));
    // A report per page of the log (2,000 messages), not per message.
    expect(progress).toEqual([...Array.from({ length: 11 }, (_, i) => (i + 1) * 2000), 23_000]);
  });
});
