import { randomUUID } from 'node:crypto';
import { evolveCatalogEntry } from '@estate/catalog';
import type { Principal, ToolSpec } from '@estate/contracts';
import { createLogger, PostgresEventBus } from '@estate/platform';
import { createTestDatabase } from '../../../../test/support/infra';
import { CatalogReplica } from './catalog.replica';

const logger = createLogger('replica-int', 'silent');
const reader: Principal = { id: 'reader', scopes: [], clearance: 'internal' };

const spec = (name: string): ToolSpec => ({
  name, version: '1.0.0', description: `Tool ${name}.`, inputSchema: { type: 'object' }, sideEffect: 'read',
  requiredScopes: [], dataClassification: 'internal', tenants: [], owner: 'o', upstream: { server: 'bank', tool: name },
});

describe('catalog replica on a real log', () => {
  let drop: () => Promise<void>;
  let bus: PostgresEventBus;

  beforeAll(async () => {
    const db = await createTestDatabase();
    drop = db.drop;
    bus = new PostgresEventBus({ url: db.url, logger });
  });

  afterAll(async () => {
    await bus.close();
    await drop();
  });

  // A stdio client lists tools the moment the edge starts: an edge that served before reading the
  // catalog topic answered that first tools/list with an empty list.
  it('has read the whole catalog topic as it stood when start() returns', async () => {
    const topic = `catalog-${randomUUID()}`;
    await bus.ensureTopics([{ name: topic, compacted: true }]);
    const names = Array.from({ length: 40 }, (_, i) => `bank.tool${String(i).padStart(2, '0')}`);
    const entries = names.map((name, i) =>
      evolveCatalogEntry(undefined, { type: 'ToolVersionPublished', version: 1, data: { spec: spec(name), bump: 'initial', changes: [] } }, i + 1, '2026-01-01T00:00:00Z', undefined));
    await bus.publish(topic, entries.map((entry) => ({ key: entry.name, value: JSON.stringify(entry) })));

    const replica = new CatalogReplica(logger, 0);
    await replica.start(bus, topic, `edge-${randomUUID()}`);
    try {
      expect(replica.visible(reader, {}).map((t) => t.entry.name)).toEqual(names);
    } finally {
      await replica.stop();
    }
  });

  it('starts at once on an empty catalog topic', async () => {
    const topic = `catalog-${randomUUID()}`;
    await bus.ensureTopics([{ name: topic, compacted: true }]);
    const replica = new CatalogReplica(logger, 0);
    const started = Date.now();
    await replica.start(bus, topic, `edge-${randomUUID()}`);
    await replica.stop();
    expect(replica.size).toBe(0);
    // Nothing to wait for: well under the ten-second catch-up bound.
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
