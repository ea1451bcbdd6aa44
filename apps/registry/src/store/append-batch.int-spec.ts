import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { openDatabase } from '@estate/platform';
import { createTestDatabase } from '../../../../test/support/infra';
import { ConcurrencyConflict } from './event-store.port';
import { REGISTRY_ENTITIES, REGISTRY_MIGRATIONS } from './migrations';
import { PostgresEventStore } from './postgres-event-store';

describe('appends of concurrent writers share a statement, each with its own version check (real PostgreSQL)', () => {
  let db: DataSource;
  let drop: () => Promise<void>;
  let store: PostgresEventStore;
  const meta = (actor: string) => ({ actor, correlationId: randomUUID() });
  const probe = (n: number) => [{ type: 'Probe', version: 1, data: { n } }];

  beforeAll(async () => {
    let url: string;
    ({ url, drop } = await createTestDatabase());
    db = await openDatabase({ url, schema: 'registry', migrations: REGISTRY_MIGRATIONS, entities: REGISTRY_ENTITIES });
    store = new PostgresEventStore(db, randomUUID, () => new Date());
  });

  afterAll(async () => {
    await db.destroy();
    await drop();
  });

  it('stores every writer of a burst, refuses only the one whose stream moved, and keeps who wrote what', async () => {
    await store.append('tool:stale', 0, probe(0), meta('first'));
    const writers = Array.from({ length: 12 }, (_, i) => store.append(`tool:w${i}`, 0, [...probe(0), ...probe(1)], meta(`writer-${i}`)));
    const stale = store.append('tool:stale', 0, probe(1), meta('late'));
    const results = await Promise.allSettled([...writers, stale]);

    expect(results.slice(0, 12).every((r) => r.status === 'fulfilled')).toBe(true);
    const refused = results[12];
    expect(refused.status === 'rejected' && refused.reason instanceof ConcurrencyConflict).toBe(true);
    for (let i = 0; i < 12; i += 1) {
      const events = await store.readStream(`tool:w${i}`);
      expect(events.map((e) => [e.position, e.actor, (e.data as { n: number }).n])).toEqual([[0, `writer-${i}`, 0], [1, `writer-${i}`, 1]]);
    }
    expect((await store.readStream('tool:stale')).map((e) => e.actor)).toEqual(['first']);
  });

  it('lets one of two writers at the same version of one stream win, whether or not they share a batch', async () => {
    const both = await Promise.allSettled([store.append('tool:race', 0, probe(0), meta('a')), store.append('tool:race', 0, probe(0), meta('b'))]);
    expect(both.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(both.filter((r) => r.status === 'rejected' && r.reason instanceof ConcurrencyConflict)).toHaveLength(1);
    expect(await store.readStream('tool:race')).toHaveLength(1);
  });

  it('a writer racing in on another connection refuses only the append it beat', async () => {
    // Another registry instance: its own store over the same database, so its appends are not in this batcher.
    const other = new PostgresEventStore(db, randomUUID, () => new Date());
    const appends = [
      other.append('tool:contested', 0, probe(0), meta('other')),
      ...Array.from({ length: 6 }, (_, i) => store.append(i === 0 ? 'tool:contested' : `tool:bystander${i}`, 0, probe(0), meta(`mine-${i}`))),
    ];
    const results = await Promise.allSettled(appends);
    const contested = [results[0], results[1]];
    expect(contested.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(results.slice(2).every((r) => r.status === 'fulfilled')).toBe(true);
    expect(await store.readStream('tool:contested')).toHaveLength(1);
    for (let i = 1; i < 6; i += 1) expect(await store.readStream(`tool:bystander${i}`)).toHaveLength(1);
  });
});
