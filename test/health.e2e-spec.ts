import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { createLogger, freePort } from '@estate/platform';
import { composeEstate } from '../apps/estate/src/estate.composition';
import { ADMIN, token, waitFor } from './support/estate.harness';
import { testEstateEnv } from './support/estate.stack';
import { startPrivatePostgres, type PrivatePostgres } from './support/private-postgres';

/**
 * Health on the real thing: a private embedded PostgreSQL this test stops and starts, the four
 * services in this process on the shared Kafka with topics of their own.
 */

const AGENT = { sub: 'health-agent', scope: 'bank:read', clearance: 'internal' };
const REFUSAL = 'health test: the projection refuses writes';

interface Answer {
  status: number;
  retryAfter: string | null;
  body: Record<string, unknown>;
}

async function get(url: string, bearer?: string, init: RequestInit = {}): Promise<Answer> {
  const response = await fetch(url, {
    ...init,
    headers: { 'content-type': 'application/json', ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
  });
  const text = await response.text();
  return { status: response.status, retryAfter: response.headers.get('retry-after'), body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

const post = (url: string, bearer: string, body: unknown) => get(url, bearer, { method: 'POST', body: JSON.stringify(body) });

/** An open server-sent-event stream, read into memory as it comes. */
async function openStream(url: string, bearer: string): Promise<{ text(): string; close(): Promise<void> }> {
  const controller = new AbortController();
  const response = await fetch(url, { headers: { authorization: `Bearer ${bearer}` }, signal: controller.signal });
  expect(response.status).toBe(200);
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const pumping = (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      text += decoder.decode(value, { stream: true });
    }
  })().catch(() => undefined);
  return {
    text: () => text,
    close: async () => {
      controller.abort();
      await pumping;
    },
  };
}

describe('health and readiness', () => {
  const logger = createLogger('health-e2e', 'fatal');
  let dir: string;
  let pgPort: number;
  let pg: PrivatePostgres | undefined;
  const stops: Array<() => Promise<void>> = [];
  const urls = { registry: '', discovery: '', audit: '', edge: '' };
  let admin: string;
  let agent: string;
  let servers = 0;

  const startPostgres = async () => {
    pg = await startPrivatePostgres(path.join(dir, 'pg'), pgPort);
    return pg;
  };
  const registerServer = (bearer: string) => post(`${urls.registry}/v1/servers`, bearer, { name: `srv${(servers += 1)}`, url: 'http://127.0.0.1:9/mcp', owner: 'health-team' });
  const sql = async (statement: string) => {
    const client = new Client({ connectionString: pg!.url });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'estate-health-'));
    pgPort = await freePort();
    const database = await startPostgres();
    const env = testEstateEnv({ env: { ESTATE_READY_MAX_LAG: '3', ESTATE_READY_STALL_SECONDS: '2', ESTATE_READY_TIMEOUT_MS: '1000' } });
    const estate = await composeEstate({ env, databaseUrl: database.url, logger, services: ['registry', 'discovery', 'audit', 'edge'] });
    stops.push(estate.stop);
    const { registry, discovery, audit, edge } = estate;
    if (!registry || !discovery || !audit || !edge) throw new Error('the estate started without one of its services');
    Object.assign(urls, { registry: registry.url, discovery: discovery.url, audit: audit.url, edge: edge.url });
    admin = await token(ADMIN);
    agent = await token(AGENT);
  }, 120_000);

  afterAll(async () => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    await pg?.stop().catch(() => undefined);
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it('answers /healthz with {"status":"ok"} alone and /readyz 200, figures only for an admin token', async () => {
    expect((await registerServer(admin)).status).toBe(201);
    for (const [service, url] of Object.entries(urls)) {
      const live = await get(`${url}/healthz`);
      expect({ service, status: live.status, body: live.body }).toEqual({ service, status: 200, body: { status: 'ok' } });
      const ready = await waitFor(async () => {
        const answer = await get(`${url}/readyz`);
        return answer.status === 200 ? answer : undefined;
      }, `${service} to be ready`, 30_000);
      expect(Object.keys(ready.body).sort()).toEqual(['checks', 'failing', 'status']);
      expect(ready.body).toMatchObject({ status: 'ready', failing: [] });
      for (const check of ready.body.checks as Array<Record<string, unknown>>) expect(Object.keys(check).sort()).toEqual(['name', 'state']);
      // A valid token without estate:admin learns no more than no token at all.
      expect((await get(`${url}/readyz`, agent)).body).toEqual(ready.body);
      expect((await get(`${url}/v1/status`)).status).toBe(401);
      expect((await get(`${url}/v1/status`, agent)).status).toBe(403);
    }
    const names = async (url: string) => ((await get(`${url}/readyz`)).body.checks as Array<{ name: string }>).map((c) => c.name);
    expect(await names(urls.registry)).toEqual(['database', 'relay.backlog']);
    expect(await names(urls.discovery)).toEqual(['database', 'projector.subscribed', 'projector.lag', 'projector.progress']);
    expect(await names(urls.audit)).toEqual([
      'database', 'registry-events.subscribed', 'registry-events.lag', 'registry-events.progress', 'calls.subscribed', 'calls.lag', 'calls.progress',
    ]);
    expect(await names(urls.edge)).toEqual(['catalog.subscribed', 'catalog.lag', 'catalog.progress']);

    const edge = await get(`${urls.edge}/v1/status`, admin);
    expect(edge.body).toMatchObject({ status: 'ready', sessions: 0, tools: expect.any(Number) });
    const discovery = await waitFor(async () => {
      const answer = await get(`${urls.discovery}/readyz`, admin);
      const [projector] = answer.body.consumers as Array<{ partitions: Array<{ lastAppliedOffset: string | null }> }>;
      return projector.partitions[0].lastAppliedOffset !== null ? answer.body : undefined;
    }, 'discovery to report the registration it applied');
    expect(discovery.consumers).toEqual([expect.objectContaining({
      name: 'projector', subscribed: true,
      partitions: [expect.objectContaining({ partition: 0, position: '1', end: '1', lag: 0, lastAppliedOffset: '0' })],
    })]);
    const registry = await get(`${urls.registry}/v1/status`, admin);
    expect(registry.body.relay).toEqual({ waiting: 0, parked: 0, oldestSeconds: 0, leading: true, lastError: null });
  }, 90_000);

  it('calls a consumer stuck on one message not ready, with its lag and the last error for an admin, and ready again once it moves', async () => {
    await sql(`CREATE FUNCTION public.health_test_refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION '${REFUSAL}'; END $$`);
    await sql(`CREATE TRIGGER health_test_refuse BEFORE INSERT OR UPDATE ON discovery.checkpoints FOR EACH ROW EXECUTE FUNCTION public.health_test_refuse()`);
    try {
      for (let i = 0; i < 5; i += 1) expect((await registerServer(admin)).status).toBe(201);
      await expectStuck();
    } finally {
      await sql(`DROP TRIGGER IF EXISTS health_test_refuse ON discovery.checkpoints`);
    }
    const dropped = Date.now();
    await waitFor(async () => ((await get(`${urls.discovery}/readyz`)).status === 200 ? true : undefined), 'discovery ready again', 60_000);
    process.stderr.write(`health: discovery ready again ${Date.now() - dropped} ms after its handler could apply again\n`);
    // Ready means at most ESTATE_READY_MAX_LAG (3) behind, not caught up: the last registrations may still be applying.
    const catalog = await waitFor(async () => {
      const answer = await get(`${urls.discovery}/v1/catalog`, admin);
      return (answer.body.servers as unknown[] | undefined)?.length === 6 ? answer : undefined;
    }, 'every registration in the catalog', 30_000);
    expect((catalog.body.servers as Array<{ name: string }>).map((s) => s.name)).toEqual(['srv1', 'srv2', 'srv3', 'srv4', 'srv5', 'srv6']);
  }, 120_000);

  async function expectStuck(): Promise<void> {
    const stuck = await waitFor(async () => {
      const answer = await get(`${urls.discovery}/readyz`);
      const failing = answer.body.failing as string[];
      return failing.includes('projector.progress') && failing.includes('projector.lag') ? answer : undefined;
    }, 'discovery to call its projector stuck and behind', 30_000);
    // Until the failure has lasted the stall time, the reason may still be the waiting messages.
    await waitFor(async () => {
      const checks = (await get(`${urls.discovery}/readyz`, admin)).body.checks as Array<{ name: string; reason?: string }>;
      return checks.find((c) => c.name === 'projector.progress')?.reason?.includes(REFUSAL) ? true : undefined;
    }, 'the handler error in the reason', 15_000);
    expect(stuck.status).toBe(503);
    expect(stuck.retryAfter).toBe('5');
    expect(stuck.body.status).toBe('not_ready');
    expect(JSON.stringify(stuck.body)).not.toMatch(/refuses writes|offset|behind|consumers/);

    const detail = (await get(`${urls.discovery}/readyz`, admin)).body;
    const reasons = Object.fromEntries((detail.checks as Array<{ name: string; reason?: string }>).map((c) => [c.name, c.reason]));
    expect(reasons['projector.progress']).toMatch(new RegExp(`partition 0: the handler has been failing on offset 1 for [\\d.]+ s \\(\\d+ attempts\\): ${REFUSAL}`));
    expect(reasons['projector.lag']).toBe('partition 0 is 5 messages behind (bound 3)');
    expect(reasons.database).toBeUndefined();
    const [projector] = detail.consumers as Array<{ partitions: Array<Record<string, unknown>> }>;
    expect(projector.partitions[0]).toMatchObject({ position: '1', end: '6', lag: 5, lastAppliedOffset: '0', failing: { offset: '1', error: REFUSAL } });
    // The other consumer of the same log is not held back, and says so.
    expect((await get(`${urls.audit}/readyz`)).status).toBe(200);
  }

  it('says how many stored events wait to be relayed while the relay cannot move', async () => {
    // A real fault: the relay can read and publish, but cannot advance its checkpoint.
    const blocker = new Client({ connectionString: pg!.url });
    await blocker.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE registry.relay_checkpoint IN EXCLUSIVE MODE');
      for (let i = 0; i < 4; i += 1) expect((await registerServer(admin)).status).toBe(201);
      const reason = await waitFor(async () => {
        const answer = await get(`${urls.registry}/readyz`, admin);
        const check = (answer.body.checks as Array<{ name: string; reason?: string }>).find((c) => c.name === 'relay.backlog');
        const waited = Number(/the oldest for ([\d.]+) s/.exec(check?.reason ?? '')?.[1] ?? 0);
        return answer.status === 503 && waited >= 2 ? check!.reason : undefined;
      }, 'the registry to report its relay stuck', 30_000);
      expect(reason).toMatch(/^4 events wait to be relayed, the oldest for [\d.]+ s$/);
      const status = await get(`${urls.registry}/v1/status`, admin);
      expect(status.body.relay).toMatchObject({ waiting: 4, leading: true });
      const anonymous = await get(`${urls.registry}/readyz`);
      expect(anonymous.body).toEqual({ status: 'not_ready', checks: [{ name: 'database', state: 'pass' }, { name: 'relay.backlog', state: 'fail' }], failing: ['relay.backlog'] });
    } finally {
      await blocker.query('ROLLBACK').catch(() => undefined);
      await blocker.end();
    }
    await waitFor(async () => ((await get(`${urls.registry}/readyz`)).status === 200 ? true : undefined), 'the relay to catch up', 30_000);
    // Ready allows a small lag: the count reaches 0 a moment after.
    await waitFor(async () => {
      const relay = (await get(`${urls.registry}/v1/status`, admin)).body.relay as { waiting: number; lastError: unknown };
      return relay.waiting === 0 && relay.lastError === null ? true : undefined;
    }, 'no stored event waiting to be relayed', 10_000);
  }, 60_000);

  it('answers 503 with Retry-After (never 500) while PostgreSQL is down, and recovers by itself within seconds', async () => {
    const routes = {
      registry: [() => get(`${urls.registry}/v1/tools`, admin), () => registerServer(admin)],
      discovery: [() => post(`${urls.discovery}/v1/discover`, agent, {}), () => get(`${urls.discovery}/v1/catalog`, admin)],
      audit: [
        () => get(`${urls.audit}/v1/audit?limit=5`, admin), () => get(`${urls.audit}/v1/audit/verify`, admin),
        () => get(`${urls.audit}/v1/tools/bank.lookup/callers`, admin), () => get(`${urls.audit}/v1/events/stream`, admin),
      ],
    };
    const stream = await openStream(`${urls.audit}/v1/events/stream`, admin);
    await pg!.stop();
    for (const [service, calls] of Object.entries(routes)) {
      for (const call of calls) {
        const answer = await call();
        expect({ service, status: answer.status, retryAfter: answer.retryAfter, error: answer.body.error }).toEqual({ service, status: 503, retryAfter: '5', error: 'UNAVAILABLE' });
        expect(String(answer.body.message)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|terminat/i);
      }
      const ready = await get(`${urls[service as keyof typeof urls]}/readyz`);
      expect({ service, status: ready.status, retryAfter: ready.retryAfter }).toEqual({ service, status: 503, retryAfter: '5' });
      expect(ready.body.failing).toContain('database');
      expect((await get(`${urls[service as keyof typeof urls]}/healthz`)).status).toBe(200);
    }
    // The edge needs no database: it stays ready and keeps its catalog.
    expect((await get(`${urls.edge}/readyz`)).status).toBe(200);

    const restart = Date.now();
    await startPostgres();
    const started = Date.now() - restart;
    const recovered: Record<string, number> = {};
    await Promise.all(Object.entries(routes).map(async ([service, calls]) => {
      let last: unknown;
      await waitFor(async () => {
        const answers = await Promise.all([...calls.slice(0, 1), ...(service === 'discovery' ? calls.slice(1) : [])].map((call) => call()));
        const ready = await get(`${urls[service as keyof typeof urls]}/readyz`, admin);
        last = { answers: answers.map((a) => [a.status, a.body.error]), ready: ready.body.checks };
        return answers.every((a) => a.status === 200) && ready.status === 200 ? true : undefined;
      }, `${service} to answer normally again`, 30_000).catch((error: Error) => {
        throw new Error(`${error.message}; last seen ${JSON.stringify(last)}`);
      });
      recovered[service] = Date.now() - restart - started;
    }));
    process.stderr.write(`health: PostgreSQL restarted in ${started} ms; services answered normally again ${JSON.stringify(recovered)} ms after it was up\n`);
    for (const ms of Object.values(recovered)) expect(ms).toBeLessThan(10_000);

    // Writes flow again end to end: the registry stores, the relay publishes, discovery applies,
    // and audit's open event stream hears of it at once (its listener came back), not on a heartbeat.
    try {
      expect((await registerServer(admin)).status).toBe(201);
      const name = `srv${servers}`;
      const written = Date.now();
      await waitFor(async () => {
        const catalog = await get(`${urls.discovery}/v1/catalog`, admin);
        return (catalog.body.servers as Array<{ name: string }>).some((s) => s.name === name) ? true : undefined;
      }, 'the new server in the catalog', 30_000);
      await waitFor(async () => (stream.text().includes(`"${name}"`) ? true : undefined), 'the new server on the event stream', 30_000);
      expect(Date.now() - written).toBeLessThan(5000);
    } finally {
      await stream.close();
    }
  }, 120_000);
});
