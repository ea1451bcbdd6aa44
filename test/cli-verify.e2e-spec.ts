import { Client } from 'pg';
import { createLogger, InMemoryEventBus } from '@estate/platform';
import { bankSpecs } from '../examples/bank/bank.specs';
import { composeEstate } from '../apps/estate/src/estate.composition';
import { ADMIN, http, TEST_SECRET, token, waitFor } from './support/estate.harness';
import { estate } from './support/cli.runner';
import { createTestDatabase } from './support/infra';


describe('estate rebuild and estate verify (in-process bus, real PostgreSQL)', () => {
  const stops: Array<() => Promise<void>> = [];
  let env: Record<string, string>;
  let databaseUrl: string;
  let bus: InMemoryEventBus;

  beforeAll(async () => {
    const db = await createTestDatabase();
    databaseUrl = db.url;
    const logger = createLogger('cli-verify', 'error');
    bus = new InMemoryEventBus();
    const base = { ESTATE_JWT_SECRET: TEST_SECRET, ESTATE_REGISTRY_PORT: '0', ESTATE_DISCOVERY_PORT: '0', ESTATE_AUDIT_PORT: '0' };
    const composed = await composeEstate({ env: base, databaseUrl, logger, bus, services: ['registry', 'discovery', 'audit'] });
    stops.push(db.drop, () => bus.close(), composed.stop);
    const { registry, discovery, audit } = composed;
    if (!registry || !discovery || !audit) throw new Error('the estate started without one of its services');
    const admin = await token(ADMIN);
    env = { ESTATE_REGISTRY_URL: registry.url, ESTATE_DISCOVERY_URL: discovery.url, ESTATE_AUDIT_URL: audit.url, ESTATE_TOKEN: admin };
    expect((await http('POST', `${registry.url}/v1/servers`, admin, { name: 'bank', url: 'http://127.0.0.1:9/mcp', owner: 'payments' })).status).toBe(201);
    for (const spec of bankSpecs('bank')) expect((await http('POST', `${registry.url}/v1/tools`, admin, spec)).status).toBe(201);
    await waitFor(async () => (((await http('GET', `${discovery.url}/v1/catalog`, admin)).body.tools as unknown[]).length === 3 ? true : undefined), 'the catalog', 30000);
  });

  afterAll(async () => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  });

  it('rebuilds and reports the counts', async () => {
    const rebuilt = await estate(['rebuild'], env);
    expect(rebuilt.code).toBe(0);
    expect(JSON.parse(rebuilt.stdout.slice(rebuilt.stdout.indexOf('{')))).toEqual({ tools: 3, servers: 1, events: 4, source: 'log' });
  });

  it('passes on an intact estate and fails, naming the difference, when the catalog drifts from the event store', async () => {
    const intact = await estate(['verify'], env);
    expect(intact).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/audit chain: intact \(\d+ entries\)\ncatalog: equal to a fresh fold of the event store \(4 events\)\ncatalog topic: holds the catalog \(\d+ records read from estate\.catalog\)/),
    });

    const pg = new Client({ connectionString: databaseUrl });
    await pg.connect();
    await pg.query(`DELETE FROM discovery.tools WHERE name = 'bank.transfer'`);
    await pg.end();
    const drifted = await estate(['verify'], env);
    expect(drifted.code).toBe(1);
    expect(drifted.stderr).toContain('catalog: DIFFERS from a fresh fold of the event store:\n  - tool bank.transfer: in the event store, missing from the catalog');

    // A rebuild repairs it.
    expect((await estate(['rebuild'], env)).code).toBe(0);
    expect((await estate(['verify'], env)).code).toBe(0);
  });

  it('fails when the catalog topic does not hold the catalog (what a new edge copy would serve), naming the tool', async () => {
    expect((await estate(['verify'], env)).code).toBe(0);
    // Discovery's catalog and its fold agree; only the topic the edges read lost the tool.
    await bus.publish('estate.catalog', [{ key: 'bank.lookup', value: null }]);
    const drifted = await estate(['verify'], env);
    expect(drifted.code).toBe(1);
    expect(drifted.stderr).toContain('catalog: equal to a fresh fold of the event store');
    expect(drifted.stderr).toContain('catalog topic: DIFFERS from the catalog (what a new edge copy would serve, read from estate.catalog):\n  - tool bank.lookup: withdrawn (a tombstone) on the topic, so no edge serves it');

    // A rebuild publishes the whole catalog again.
    expect((await estate(['rebuild'], env)).code).toBe(0);
    expect((await estate(['verify'], env)).code).toBe(0);
  });
});
