import type { DataSource } from 'typeorm';
import type { CatalogEntry } from '@estate/events';
import { openDatabase } from '@estate/platform';
import { bankSpecs } from '../../../../examples/bank/bank.specs';
import { createTestDatabase } from '../../../../test/support/infra';
import { CatalogRepository } from './catalog.repository';
import { DISCOVERY_ENTITIES, DISCOVERY_MIGRATIONS } from './migrations';

const [lookup] = bankSpecs('pay');
const version = (v: string, status: 'active' | 'deprecated') => ({ version: v, status, quarantined: false, spec: { ...lookup, version: v }, publishedAt: '2026-01-01T00:00:00.000Z' });
const entry: CatalogEntry = {
  name: lookup.name,
  upstream: { server: 'pay', transport: 'streamable-http', allowSampling: false, allowElicitation: false, url: 'http://127.0.0.1:9/mcp' },
  versions: [version('1.2.0', 'deprecated'), version('1.10.0', 'active')],
  position: 7,
};

/** A catalog stored before versions had rows of their own is served the same after the migration. */
describe('moving tool versions to rows', () => {
  let test: { url: string; drop(): Promise<void> };
  const opened: DataSource[] = [];

  beforeAll(async () => {
    test = await createTestDatabase();
  });

  afterAll(async () => {
    for (const db of opened) await db.destroy();
    await test.drop();
  });

  it('keeps every entry as it was, versions in semver order', async () => {
    const before = DISCOVERY_MIGRATIONS.filter((m) => m.name !== 'ToolVersionRows1764600000001');
    const old = await openDatabase({ url: test.url, schema: 'discovery', migrations: before, entities: [], poolSize: 1 });
    opened.push(old);
    await old.query(`INSERT INTO discovery.tools (name, server, entry) VALUES ($1, 'pay', $2::json)`, [entry.name, JSON.stringify(entry)]);
    const db = await openDatabase({ url: test.url, schema: 'discovery', migrations: DISCOVERY_MIGRATIONS, entities: DISCOVERY_ENTITIES, poolSize: 1 });
    opened.push(db);
    const repo = new CatalogRepository(db);
    expect(await repo.allTools()).toEqual([entry]);
    expect(JSON.stringify((await repo.toolsNamed([entry.name]))[0])).toBe(JSON.stringify(entry));
  });
});
