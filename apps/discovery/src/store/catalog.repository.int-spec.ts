import type { DataSource } from 'typeorm';
import type { CatalogEntry, ServerRegisteredData } from '@estate/events';
import { openDatabase } from '@estate/platform';
import { bankSpecs } from '../../../../examples/bank/bank.specs';
import { createTestDatabase } from '../../../../test/support/infra';
import { CatalogRepository } from './catalog.repository';
import { DISCOVERY_ENTITIES, DISCOVERY_MIGRATIONS } from './migrations';

const [lookup] = bankSpecs('pay');
const server: ServerRegisteredData = { name: 'pay', namespace: 'pay', url: 'http://127.0.0.1:9/mcp', owner: 'ops', transport: 'streamable-http', allowSampling: false, allowElicitation: false };
const entry: CatalogEntry = {
  name: lookup.name,
  upstream: { server: 'pay', transport: 'streamable-http', allowSampling: false, allowElicitation: false, url: server.url },
  versions: [{ version: '1.0.0', status: 'active', quarantined: false, spec: lookup, publishedAt: '2026-01-01T00:00:00.000Z' }],
  position: 0,
};

/**
 * GET /v1/catalog and verify read the catalog while batches commit. A batch that registers a
 * server and publishes its tools commits both at once; a reader must see both or neither.
 */
describe('the catalog as one read', () => {
  let test: { url: string; drop(): Promise<void> };
  let db: DataSource;
  let repo: CatalogRepository;

  beforeAll(async () => {
    test = await createTestDatabase();
    db = await openDatabase({ url: test.url, schema: 'discovery', migrations: DISCOVERY_MIGRATIONS, entities: DISCOVERY_ENTITIES, poolSize: 4 });
    repo = new CatalogRepository(db);
  });

  afterAll(async () => {
    await db.destroy();
    await test.drop();
  });

  beforeEach(async () => {
    await db.query(`DELETE FROM discovery.tools; DELETE FROM discovery.servers`);
  });

  // The batch commits while the reader waits on one table: then some reads ran before the commit
  // and the rest after. Each table in turn, so the test holds whatever order the reads take.
  it.each([['servers'], ['tools'], ['tool_versions']])('never shows a batch half committed (the commit lands while %s is read)', async (table) => {
    const batch = db.createQueryRunner();
    await batch.connect();
    try {
      await batch.startTransaction();
      // A real commit at a chosen moment: readers of the locked table wait for the batch to end.
      await batch.query(`LOCK TABLE discovery.${table} IN ACCESS EXCLUSIVE MODE`);
      await repo.upsertServer(batch, server);
      await repo.upsertTool(batch, entry);
      const reading = repo.catalog();
      await waitForLockWaiter(db);
      await batch.commitTransaction();
      const seen = await reading;
      const names = { servers: seen.servers.map((s) => s.name), tools: seen.tools.map((t) => t.name) };
      expect([{ servers: [], tools: [] }, { servers: ['pay'], tools: ['pay.lookup'] }]).toContainEqual(names);
    } finally {
      if (batch.isTransactionActive) await batch.rollbackTransaction();
      await batch.release();
    }
    expect(await repo.catalog()).toEqual({ servers: [server], tools: [entry], deadLetters: 0 });
  });
});

/** Until a session of this database waits for a lock: the reader stands at the locked table. */
async function waitForLockWaiter(db: DataSource): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const [{ waiting }] = (await db.query(
      `SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
    )) as Array<{ waiting: number }>;
    if (waiting > 0) return;
    if (Date.now() > deadline) throw new Error('the reader never reached the locked table');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
