import { createLogger } from '@estate/platform';
import type { CatalogEntry } from '@estate/events';
import { bankSpecs } from '../examples/bank/bank.specs';
import { composeEstate } from '../apps/estate/src/estate.composition';
import { createTestDatabase, freePort, kafkaBrokers, randomTopicPrefix } from './support/infra';
import { ADMIN, http, spawnService, TEST_SECRET, token, waitFor, type ChildService } from './support/estate.harness';

const TOOLS = 6;
const VERSIONS = 8;

function specFor(tool: number, minor: number) {
  const base = bankSpecs('bank')[0];
  const properties: Record<string, unknown> = { ...(base.inputSchema.properties as object) };
  for (let i = 1; i <= minor; i += 1) properties[`note${i}`] = { type: 'string' };
  return { ...base, name: `bank.tool${tool}`, version: `1.${minor}.0`, inputSchema: { ...base.inputSchema, properties } };
}

describe('discovery killed with SIGKILL while events flow', () => {
  const logger = createLogger('crash-test', 'error');
  const stops: Array<() => Promise<void>> = [];
  let env: Record<string, string>;
  let registryUrl: string;
  let discovery: ChildService;
  let discoveryUrl: string;

  beforeAll(async () => {
    const db = await createTestDatabase();
    stops.push(db.drop);
    const port = await freePort();
    discoveryUrl = `http://127.0.0.1:${port}`;
    env = {
      DATABASE_URL: db.url,
      KAFKA_BROKERS: kafkaBrokers().join(','),
      ESTATE_TOPIC_PREFIX: randomTopicPrefix(),
      ESTATE_JWT_SECRET: TEST_SECRET,
      ESTATE_DISCOVERY_PORT: String(port),
      ESTATE_DISCOVERY_GROUP: `discovery-crash-${Date.now()}`,
      ESTATE_REGISTRY_PORT: '0',
    };
    const estate = await composeEstate({ env, databaseUrl: db.url, logger, services: ['registry'] });
    stops.push(estate.stop);
    registryUrl = estate.registry?.url ?? '';
    discovery = spawnService('apps/discovery/src/main.js', env);
    stops.push(() => discovery.stop());
  });

  afterAll(async () => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  });

  it('ends with a projection equal to a fresh rebuild: nothing lost, nothing applied twice', async () => {
    const admin = await token(ADMIN);
    expect((await http('POST', `${registryUrl}/v1/servers`, admin, { name: 'bank', url: 'http://127.0.0.1:1/mcp', owner: 'ops' })).status).toBe(201);
    let published = 0;
    const killAt = Math.floor((TOOLS * VERSIONS) / 3);
    for (let minor = 0; minor < VERSIONS; minor += 1) {
      for (let tool = 0; tool < TOOLS; tool += 1) {
        expect((await http('POST', `${registryUrl}/v1/tools`, admin, specFor(tool, minor))).status).toBe(201);
        published += 1;
        if (published === killAt) {
          await waitFor(async () => ((await http('GET', `${discoveryUrl}/v1/catalog`, admin)).status === 200 ? true : undefined), 'discovery up');
          await discovery.stop('SIGKILL');
          expect(discovery.process.signalCode).toBe('SIGKILL');
        }
        if (published === killAt + TOOLS) discovery = spawnService('apps/discovery/src/main.js', env);
      }
    }
    for (let tool = 0; tool < TOOLS; tool += 2) {
      const r = await http('POST', `${registryUrl}/v1/tools/bank.tool${tool}/versions/1.0.0/deprecate`, admin, { reason: 'superseded' });
      expect(r.status).toBe(200);
    }

    const live = await waitFor(async () => {
      const r = await http('GET', `${discoveryUrl}/v1/catalog`, admin);
      const tools = (r.body.tools ?? []) as CatalogEntry[];
      const complete = tools.length === TOOLS && tools.every((t) => t.versions.length === VERSIONS && t.position === (Number(t.name.slice(-1)) % 2 === 0 ? VERSIONS : VERSIONS - 1));
      return complete ? r.body : undefined;
    }, 'discovery to catch up after the restart', 60000);
    for (const tool of live.tools as CatalogEntry[]) {
      expect(tool.versions.map((v) => v.version)).toEqual(Array.from({ length: VERSIONS }, (_, i) => `1.${i}.0`));
    }

    const rebuilt = await http('POST', `${discoveryUrl}/v1/rebuild`, admin);
    expect(rebuilt).toMatchObject({ status: 200, body: { tools: TOOLS, servers: 1 } });
    const fresh = await http('GET', `${discoveryUrl}/v1/catalog`, admin);
    expect(fresh.body).toEqual(live);
  }, 150000);
});
