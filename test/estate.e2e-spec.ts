import os from 'node:os';
import path from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { createLogger, KafkaEventBus } from '@estate/platform';
import { startBankServer, type BankServerHandle } from '../examples/bank/bank.server';
import { loadAuditConfig } from '../apps/audit/src/config';
import { startAudit } from '../apps/audit/src/audit.app';
import { loadDiscoveryConfig } from '../apps/discovery/src/config';
import { startDiscovery } from '../apps/discovery/src/discovery.app';
import { loadEdgeConfig } from '../apps/mcp-edge/src/config';
import { startEdge } from '../apps/mcp-edge/src/edge.app';
import { loadRegistryConfig } from '../apps/registry/src/config';
import { startRegistry } from '../apps/registry/src/registry.app';
import { createTestDatabase, freePort, kafkaBrokers, randomTopicPrefix } from './support/infra';
import { spawnService, TEST_SECRET, waitFor, type ChildService } from './support/estate.harness';
import { publishToCallFlow } from './support/estate.flow';

describe('estate end to end on real Kafka and PostgreSQL', () => {
  const logger = createLogger('e2e', 'error');
  const stops: Array<() => Promise<void>> = [];
  let bank: BankServerHandle;
  let urls: { registry: string; mcp: string; audit: string };

  beforeAll(async () => {
    const db = await createTestDatabase();
    stops.push(db.drop);
    bank = await startBankServer({ port: 0 });
    stops.push(bank.close);
    const env = {
      ESTATE_JWT_SECRET: TEST_SECRET,
      ESTATE_TOPIC_PREFIX: randomTopicPrefix(),
      KAFKA_BROKERS: kafkaBrokers().join(','),
      ESTATE_REGISTRY_PORT: '0', ESTATE_DISCOVERY_PORT: '0', ESTATE_AUDIT_PORT: '0', ESTATE_EDGE_PORT: '0',
      ESTATE_DISCOVERY_GROUP: `discovery-${Date.now()}`, ESTATE_AUDIT_GROUP: `audit-${Date.now()}`,
    };
    const bus = new KafkaEventBus({ brokers: kafkaBrokers(), clientId: 'e2e', logger });
    stops.push(() => bus.close());
    const registry = await startRegistry({ ...loadRegistryConfig(env), databaseUrl: db.url }, bus, logger);
    const discovery = await startDiscovery({ ...loadDiscoveryConfig(env), databaseUrl: db.url }, bus, logger);
    const audit = await startAudit({ ...loadAuditConfig(env), databaseUrl: db.url }, bus, logger);
    const edge = await startEdge(loadEdgeConfig(env), bus, logger);
    stops.push(registry.stop, discovery.stop, audit.stop, edge.stop);
    urls = { registry: registry.url, mcp: edge.mcpUrl, audit: audit.url };
  });

  afterAll(async () => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  });

  it('publishes, lists, notifies exactly the right session, calls and audits', async () => {
    await publishToCallFlow({
      registryUrl: urls.registry,
      mcpUrl: urls.mcp,
      auditUrl: urls.audit,
      bankUrl: bank.url,
      upstreamCalls: () => bank.stats().total,
    });
  });
});

describe('estate end to end against the embedded default (npm start)', () => {
  let child: ChildService;
  let bank: BankServerHandle;
  let dataDir: string;
  const ports = { registry: 0, discovery: 0, audit: 0, edge: 0 };

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'estate-embedded-'));
    bank = await startBankServer({ port: 0 });
    for (const key of Object.keys(ports) as Array<keyof typeof ports>) ports[key] = await freePort();
    child = spawnService('apps/estate/src/main.js', {
      ESTATE_DATA_DIR: dataDir,
      ESTATE_DEMO: '0',
      ESTATE_JWT_SECRET: TEST_SECRET,
      ESTATE_REGISTRY_PORT: String(ports.registry),
      ESTATE_DISCOVERY_PORT: String(ports.discovery),
      ESTATE_AUDIT_PORT: String(ports.audit),
      ESTATE_EDGE_PORT: String(ports.edge),
      DATABASE_URL: '',
      KAFKA_BROKERS: '',
      LOG_LEVEL: 'warn',
    });
    await waitFor(async () => (child.output().includes('Estate is running') ? true : undefined), 'npm start to print its banner', 90000);
  }, 120000);

  afterAll(async () => {
    await child?.stop('SIGINT');
    await bank?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('runs the same flow with embedded PostgreSQL and the in-process bus', async () => {
    expect(child.output()).toContain('bus: in-process; database: embedded');
    await publishToCallFlow({
      registryUrl: `http://127.0.0.1:${ports.registry}`,
      mcpUrl: `http://127.0.0.1:${ports.edge}/mcp`,
      auditUrl: `http://127.0.0.1:${ports.audit}`,
      bankUrl: bank.url,
      upstreamCalls: () => bank.stats().total,
    });
  });

  it('stops cleanly on Ctrl-C', async () => {
    await child.stop('SIGINT');
    expect(child.process.exitCode).toBe(0);
  });
});
