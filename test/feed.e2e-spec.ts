import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from 'pg';
import { createLogger } from '@estate/platform';
import { bankSpecs } from '../examples/bank/bank.specs';
import { startAudit, type RunningAudit } from '../apps/audit/src/audit.app';
import { loadAuditConfig } from '../apps/audit/src/config';
import { composeEstate, type ComposedEstate } from '../apps/estate/src/estate.composition';
import { ADMIN, http, token, waitFor } from './support/estate.harness';
import { testEstateEnv } from './support/estate.stack';
import { createTestDatabase } from './support/infra';

/** The README's verification recipe, as a receiver would write it. */
function verify(secret: string, header: string, body: string): boolean {
  const parts = Object.fromEntries(header.split(',').map((kv) => kv.split('=')));
  if (Math.abs(Date.now() / 1000 - Number(parts.t)) > 300) return false;
  const expected = createHmac('sha256', secret).update(`${parts.t}.${body}`).digest();
  const given = Buffer.from(parts.v1 ?? '', 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  status: number;
}

/** A real HTTP receiver: answers 500 while `failures` lasts (or always when `dead`), else 204. */
class Receiver {
  readonly received: Received[] = [];
  failures = 0;
  dead = false;
  private server!: Server;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => { body += chunk.toString('utf8'); });
      req.on('end', () => {
        const status = this.dead ? 503 : this.failures > 0 ? 500 : 204;
        if (status === 500) this.failures -= 1;
        this.received.push({ headers: req.headers, body, status });
        res.writeHead(status).end();
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  /** Events answered 2xx, in arrival order. */
  accepted(): Array<{ id: string; subject: string; type: string; data: { version?: string; spec?: { version: string } } }> {
    return this.received.filter((r) => r.status < 300).map((r) => JSON.parse(r.body) as ReturnType<Receiver['accepted']>[number]);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

const spec = (name: string, minor: number) => {
  const base = bankSpecs(name.split('.')[0])[0];
  const properties: Record<string, unknown> = { ...(base.inputSchema.properties as object) };
  for (let i = 1; i <= minor; i += 1) properties[`note${i}`] = { type: 'string' };
  return { ...base, name, version: `1.${minor}.0`, inputSchema: { ...base.inputSchema, properties } };
};

describe('webhooks on real Kafka and PostgreSQL', () => {
  const logger = createLogger('feed-webhooks', 'error');
  const stops: Array<() => Promise<void>> = [];
  let estate: ComposedEstate;
  let audit: RunningAudit;
  let startAuditAgain: () => Promise<RunningAudit>;
  let admin: string;
  let registryUrl: string;
  let databaseUrl: string;

  beforeAll(async () => {
    const db = await createTestDatabase();
    stops.push(db.drop);
    databaseUrl = db.url;
    const env = testEstateEnv({
      env: {
        ESTATE_WEBHOOK_SECRET_KEY: 'feed-e2e-webhook-secret-key-0123456789',
        ESTATE_WEBHOOK_ALLOW: '127.0.0.0/8', ESTATE_WEBHOOK_BACKOFF_MS: '40', ESTATE_WEBHOOK_BACKOFF_MAX_MS: '200',
        ESTATE_WEBHOOK_MAX_ATTEMPTS: '5', ESTATE_WEBHOOK_POLL_MS: '100', ESTATE_WEBHOOK_TIMEOUT_MS: '3000',
      },
    });
    estate = await composeEstate({ env, databaseUrl: db.url, logger, services: ['registry'] });
    stops.push(estate.stop);
    startAuditAgain = () => startAudit({ ...loadAuditConfig(env), databaseUrl: db.url }, estate.bus, logger);
    audit = await startAuditAgain();
    registryUrl = estate.registry?.url ?? '';
    admin = await token(ADMIN);
    for (const server of ['pay', 'other', 'dead', 'twin']) {
      expect((await http('POST', `${registryUrl}/v1/servers`, admin, { name: server, url: 'http://127.0.0.1:1/mcp', owner: 'ops' })).status).toBe(201);
    }
  }, 60_000);

  afterAll(async () => {
    await audit?.stop().catch(() => undefined);
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  });

  const publish = async (name: string, minor: number) => expect((await http('POST', `${registryUrl}/v1/tools`, admin, spec(name, minor))).status).toBe(201);
  const lifecycle = async (name: string, version: string, action: 'deprecate' | 'retire') =>
    expect((await http('POST', `${registryUrl}/v1/tools/${name}/versions/${version}/${action}`, admin, { reason: 'superseded' })).status).toBe(200);

  it('delivers every filtered event, signed, in order per tool, across 3 refusals and a restart of audit', async () => {
    const receiver = new Receiver();
    await receiver.start();
    stops.push(() => receiver.close());
    const created = await http('POST', `${audit.url}/v1/subscriptions`, admin, { url: receiver.url, filter: { tools: ['pay.*'] } });
    expect(created).toMatchObject({ status: 201, body: { subscription: { url: receiver.url, filter: { tools: ['pay.*'], types: [] } } } });
    const secret = created.body.secret as string;
    const id = (created.body.subscription as { id: string }).id;
    expect(secret.length).toBeGreaterThanOrEqual(32);
    const listed = await http('GET', `${audit.url}/v1/subscriptions`, admin);
    expect(listed.body.subscriptions).toEqual([expect.objectContaining({ id })]);
    expect(JSON.stringify(listed.body)).not.toContain(secret);
    expect(JSON.stringify((await http('GET', `${audit.url}/v1/subscriptions/${id}`, admin)).body)).not.toContain(secret);
    // At rest the secret is sealed: the row shows nothing a reader of the database could sign with.
    const client = new Client({ connectionString: databaseUrl });
    await client.connect();
    const rows = (await client.query('SELECT secret FROM audit.webhook_subscriptions WHERE id = $1', [id]).finally(() => client.end())).rows as { secret: string }[];
    expect(rows[0].secret).toMatch(/^sealed:v1:/);
    expect(rows[0].secret).not.toContain(secret);

    await publish('pay.alpha', 0);
    await publish('other.gamma', 0);
    await publish('pay.beta', 0);
    await waitFor(async () => (receiver.accepted().length >= 2 ? true : undefined), 'the first two deliveries');
    // The receiver refuses the next three requests, then recovers.
    receiver.failures = 3;
    await publish('pay.alpha', 1);
    await lifecycle('pay.alpha', '1.0.0', 'deprecate');
    await publish('pay.beta', 1);
    await waitFor(async () => (receiver.accepted().length >= 5 ? true : undefined), 'deliveries after the refusals');
    expect(receiver.received.filter((r) => r.status === 500)).toHaveLength(3);
    const metrics = await (await fetch(`${audit.url}/metrics`)).text();
    expect(metrics).toMatch(/estate_webhook_deliveries_total\{outcome="failed"[^}]*\} 3\n/);
    expect(metrics).toMatch(/estate_webhook_deliveries_total\{outcome="delivered"[^}]*\} [5-9]\n/);

    // A delivery still owed when audit stops, events recorded while it is down: the restart delivers both, nothing skipped.
    receiver.dead = true;
    await lifecycle('pay.alpha', '1.0.0', 'retire');
    await waitFor(async () => (receiver.received.some((r) => r.status === 503) ? true : undefined), 'the retirement refused');
    await audit.stop();
    await lifecycle('pay.beta', '1.0.0', 'deprecate');
    await publish('other.gamma', 1);
    receiver.dead = false;
    audit = await startAuditAgain();
    await publish('pay.beta', 2);
    await waitFor(async () => (receiver.accepted().length >= 8 ? true : undefined), 'deliveries after the restart', 30_000);
    await new Promise((resolve) => setTimeout(resolve, 500));

    const accepted = receiver.accepted();
    // At least once: a delivery cut off by the restart may come twice, but never after a later one.
    // The callers of a deprecated version follow its deprecation once audit has counted them
    // (after a short settling wait), so they are checked apart from the registry's own order.
    const CALLERS = 'io.estate.tool.version.deprecation.callers';
    const perTool = (tool: string) => accepted.filter((e) => e.subject === tool && e.type !== CALLERS)
      .map((e) => `${e.type.replace('io.estate.tool.version.', '')} ${e.data.spec?.version ?? e.data.version}`)
      .filter((e, i, all) => i === 0 || all[i - 1] !== e);
    const callers = accepted.findIndex((e) => e.subject === 'pay.alpha' && e.type === CALLERS);
    const deprecation = accepted.findIndex((e) => e.subject === 'pay.alpha' && e.type === 'io.estate.tool.version.deprecated');
    expect(callers === -1 || callers > deprecation).toBe(true);
    expect(perTool('pay.alpha')).toEqual(['published 1.0.0', 'published 1.1.0', 'deprecated 1.0.0', 'retired 1.0.0']);
    expect(perTool('pay.beta')).toEqual(['published 1.0.0', 'published 1.1.0', 'deprecated 1.0.0', 'published 1.2.0']);
    expect(accepted.some((e) => e.subject === 'other.gamma')).toBe(false);
    for (const request of receiver.received) {
      expect(verify(secret, request.headers['webhook-signature'] as string, request.body)).toBe(true);
      expect(request.headers['x-estate-signature']).toBe(request.headers['webhook-signature']);
      expect(request.headers['webhook-id']).toBe((JSON.parse(request.body) as { id: string }).id);
      expect(request.headers['content-type']).toBe('application/cloudevents+json');
    }
    expect(verify('x'.repeat(32), receiver.received[0].headers['webhook-signature'] as string, receiver.received[0].body)).toBe(false);

    // The trail shows who subscribed and what was delivered.
    const trail = async (type: string) => ((await http('GET', `${audit.url}/v1/audit?type=${type}`, admin)).body.entries ?? []) as Array<{ principal: string }>;
    expect(await trail('WebhookSubscribed')).toEqual([expect.objectContaining({ principal: 'platform-admin' })]);
    expect((await trail('WebhookDelivered')).length).toBeGreaterThanOrEqual(8);
    expect((await http('DELETE', `${audit.url}/v1/subscriptions/${id}`, admin)).body).toEqual({ deleted: id });
    expect((await http('GET', `${audit.url}/v1/subscriptions/${id}`, admin)).status).toBe(404);
  }, 120_000);

  it('refuses metadata, link-local and bad requests with 400 and the path, and non-admins with 403', async () => {
    const refused = await http('POST', `${audit.url}/v1/subscriptions`, admin, { url: 'http://169.254.169.254/latest/meta-data/' });
    expect(refused).toMatchObject({ status: 400, body: { error: 'INVALID_SUBSCRIPTION', details: { path: 'url' } } });
    expect((await http('POST', `${audit.url}/v1/subscriptions`, admin, { url: 'http://[fe80::1]/' })).status).toBe(400);
    expect(await http('POST', `${audit.url}/v1/subscriptions`, admin, { url: 'http://127.0.0.1:1/', filter: { types: ['Nope'] } }))
      .toMatchObject({ status: 400, body: { details: { path: 'filter.types[0]' } } });
    expect(await http('POST', `${audit.url}/v1/subscriptions`, admin, { url: 'http://127.0.0.1:1/', secret: 'short' }))
      .toMatchObject({ status: 400, body: { details: { path: 'secret' } } });
    const reader = await token({ sub: 'auditor', scope: 'estate:audit', clearance: 'restricted' });
    expect((await http('POST', `${audit.url}/v1/subscriptions`, reader, { url: 'http://127.0.0.1:1/' })).status).toBe(403);
    expect((await http('GET', `${audit.url}/v1/subscriptions`, reader)).status).toBe(403);
    expect(((await http('GET', `${audit.url}/v1/subscriptions`, admin)).body.subscriptions as Array<{ url: string }>).map((s) => s.url)).not.toContain('http://169.254.169.254/latest/meta-data/');
  });

  it('dead-letters what a dead receiver never took, without holding up another receiver, and replays it', async () => {
    const dead = new Receiver();
    const alive = new Receiver();
    await dead.start();
    await alive.start();
    stops.push(() => dead.close(), () => alive.close());
    dead.dead = true;
    const secret = 's'.repeat(40);
    const created = await http('POST', `${audit.url}/v1/subscriptions`, admin, { url: dead.url, filter: { tools: ['dead.*'] }, secret });
    expect(created.status).toBe(201);
    expect(created.body.secret).toBe(secret);
    const id = (created.body.subscription as { id: string }).id;
    expect((await http('POST', `${audit.url}/v1/subscriptions`, admin, { url: alive.url, filter: { tools: ['dead.*'] } })).status).toBe(201);

    await publish('dead.delta', 0);
    await waitFor(async () => (alive.accepted().length === 1 ? true : undefined), 'the live receiver served');
    const letters = await waitFor(async () => {
      const body = (await http('GET', `${audit.url}/v1/subscriptions/${id}/dead-letters`, admin)).body.deadLetters as Array<{ id: string; attempts: number; tool: string }>;
      return body.length === 1 ? body : undefined;
    }, 'a dead letter');
    expect(letters[0]).toMatchObject({ attempts: 5, tool: 'dead.delta' });
    expect(dead.received).toHaveLength(5);
    expect(((await http('GET', `${audit.url}/v1/audit?type=WebhookDeadLettered`, admin)).body.entries as unknown[]).length).toBe(1);

    dead.dead = false;
    expect((await http('POST', `${audit.url}/v1/subscriptions/${id}/dead-letters/999999/replay`, admin)).status).toBe(404);
    expect((await http('POST', `${audit.url}/v1/subscriptions/${id}/dead-letters/${letters[0].id}/replay`, admin)).status).toBe(202);
    await waitFor(async () => (dead.accepted().length === 1 ? true : undefined), 'the replayed delivery');
    expect(dead.accepted()[0].id).toBe(alive.accepted()[0].id);
    expect(verify(secret, dead.received[5].headers['webhook-signature'] as string, dead.received[5].body)).toBe(true);
    await waitFor(async () => (((await http('GET', `${audit.url}/v1/subscriptions/${id}/dead-letters`, admin)).body.deadLetters as unknown[]).length === 0 ? true : undefined), 'an empty dead-letter list');
  }, 60_000);
  it('delivers each event once when two audit instances share the database: one of them delivers', async () => {
    const second = await startAuditAgain();
    stops.push(() => second.stop());
    const receiver = new Receiver();
    await receiver.start();
    stops.push(() => receiver.close());
    // Subscribed through the instance that does not hold the lock: the other one picks it up.
    const created = await http('POST', `${second.url}/v1/subscriptions`, admin, { url: receiver.url, filter: { tools: ['twin.*'] } });
    expect(created.status).toBe(201);
    await publish('twin.epsilon', 0);
    await publish('twin.epsilon', 1);
    await waitFor(async () => (receiver.accepted().length >= 2 ? true : undefined), 'both twin events');
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(receiver.accepted().map((e) => e.data.spec?.version)).toEqual(['1.0.0', '1.1.0']);
  }, 60_000);
});

describe('webhooks wake on the trail NOTIFY, not on the dispatcher tick', () => {
  const logger = createLogger('feed-webhooks-notify', 'error');
  const stops: Array<() => Promise<void>> = [];

  afterAll(async () => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  });

  it('delivers a publish within seconds while the tick is a minute away', async () => {
    const db = await createTestDatabase();
    stops.push(db.drop);
    // A tick of 60 s: after the first one (at start), only the append's NOTIFY can wake the worker in time.
    const env = testEstateEnv({ env: { ESTATE_WEBHOOK_ALLOW: '127.0.0.0/8', ESTATE_WEBHOOK_POLL_MS: '60000' } });
    const estate = await composeEstate({ env, databaseUrl: db.url, logger, services: ['registry'] });
    stops.push(estate.stop);
    const audit = await startAudit({ ...loadAuditConfig(env), databaseUrl: db.url }, estate.bus, logger);
    stops.push(() => audit.stop());
    const registryUrl = estate.registry?.url ?? '';
    const admin = await token(ADMIN);
    expect((await http('POST', `${registryUrl}/v1/servers`, admin, { name: 'pay', url: 'http://127.0.0.1:1/mcp', owner: 'ops' })).status).toBe(201);
    const receiver = new Receiver();
    await receiver.start();
    stops.push(() => receiver.close());
    expect((await http('POST', `${audit.url}/v1/subscriptions`, admin, { url: receiver.url, filter: { tools: ['pay.*'] } })).status).toBe(201);

    const published = Date.now();
    expect((await http('POST', `${registryUrl}/v1/tools`, admin, spec('pay.alpha', 0))).status).toBe(201);
    await waitFor(async () => (receiver.accepted().length >= 1 ? true : undefined), 'the delivery of pay.alpha', 20_000);
    expect(Date.now() - published).toBeLessThan(15_000);
    expect(receiver.accepted().map((e) => e.subject)).toEqual(['pay.alpha']);
  }, 60_000);
});
