import os from 'node:os';
import path from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { startBankServer, type BankServerHandle } from '../examples/bank/bank.server';
import { freePort } from './support/infra';
import { startEstateServices, type EstateServices } from './support/estate.stack';
import { spawnService, TEST_SECRET, waitFor, type ChildService } from './support/estate.harness';
import { publishToCallFlow } from './support/estate.flow';

describe('estate end to end on real Kafka and PostgreSQL', () => {
  let estate: EstateServices;
  let bank: BankServerHandle;
  let mcpUrl: string;

  beforeAll(async () => {
    estate = await startEstateServices({ name: 'e2e', audit: true });
    bank = await startBankServer({ port: 0 });
    estate.onStop(bank.close);
    mcpUrl = (await estate.startEdge()).mcpUrl;
  });

  afterAll(async () => {
    await estate.stop();
  });

  it('publishes, lists, notifies exactly the right session, calls and audits', async () => {
    await publishToCallFlow({
      registryUrl: estate.registryUrl,
      mcpUrl,
      auditUrl: estate.auditUrl as string,
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
      ESTATE_CONSOLE_PORT: '0',
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

  it('runs the same flow with embedded PostgreSQL and the durable log in it', async () => {
    expect(child.output()).toContain('bus: durable log in PostgreSQL (schema bus); database: embedded');
    await publishToCallFlow({
      registryUrl: `http://127.0.0.1:${ports.registry}`,
      mcpUrl: `http://127.0.0.1:${ports.edge}/mcp`,
      auditUrl: `http://127.0.0.1:${ports.audit}`,
      bankUrl: bank.url,
      upstreamCalls: () => bank.stats().total,
    });
  });

  it('answers /healthz and /readyz on each of the four ports, with no internals for a caller without a token', async () => {
    for (const port of Object.values(ports)) {
      const live = await fetch(`http://127.0.0.1:${port}/healthz`);
      expect(await live.json()).toEqual({ status: 'ok' });
      const ready = await waitFor(async () => {
        const answer = await fetch(`http://127.0.0.1:${port}/readyz`);
        return answer.status === 200 ? ((await answer.json()) as { status: string; failing: string[] }) : undefined;
      }, `port ${port} to be ready`);
      expect(ready).toMatchObject({ status: 'ready', failing: [] });
    }
  });

  it('prints the console URL and serves the console there under a strict content policy', async () => {
    const url = /console\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(child.output())?.[1];
    expect(url).toBeDefined();
    const page = await fetch(`${url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await page.text()).toContain('<script type="module" src="/js/main.js"></script>');
    const tools = await fetch(`${url}/api/registry/v1/tools`);
    expect(tools.status).toBe(401);
  });

  it('serves one AsyncAPI document from the registry and audit, naming audit where it listens and no Kafka', async () => {
    const fromAudit = (await (await fetch(`http://127.0.0.1:${ports.audit}/asyncapi.json`)).json()) as { servers: Record<string, { host: string }> };
    expect(fromAudit.servers).toEqual({ audit: expect.objectContaining({ host: `127.0.0.1:${ports.audit}` }) });
    expect(await (await fetch(`http://127.0.0.1:${ports.registry}/asyncapi.json`)).json()).toEqual(fromAudit);
  });

  it('stops cleanly on Ctrl-C', async () => {
    await child.stop('SIGINT');
    expect(child.process.exitCode).toBe(0);
  });
});
