import { createLogger, InMemoryEventBus, type EventBus } from '@estate/platform';
import { CatalogRebuilder, RebuildTimeout, RebuildUnavailable } from './catalog.rebuilder';

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

  it('refuses to fold a log holding fewer events than the catalog applied when it has no event store to read', async () => {
    const log = new InMemoryEventBus();
    await log.publish('events', [{ key: 'k', value: '{}' }]);
    await expect(new CatalogRebuilder(log, 'events', 'g', logger, {}).fold(5)).rejects.toBeInstanceOf(RebuildUnavailable);
  });
});
