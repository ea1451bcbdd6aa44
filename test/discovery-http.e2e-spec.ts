import { randomUUID } from 'node:crypto';
import type { ToolSpec } from '@estate/contracts';
import { topicName, type CatalogEntry, type EventEnvelope } from '@estate/events';
import { createLogger, KafkaEventBus } from '@estate/platform';
import { bankSpecs } from '../examples/bank/bank.specs';
import { ADMIN, http, TEST_SECRET, token, waitFor } from './support/estate.harness';
import { createTestDatabase, kafkaBrokers, randomTopicPrefix } from './support/infra';
import { loadRegistryConfig } from '../apps/registry/src/config';
import { startRegistry } from '../apps/registry/src/registry.app';
import { loadDiscoveryConfig } from '../apps/discovery/src/config';
import { startDiscovery } from '../apps/discovery/src/discovery.app';

const ALICE = { sub: 'alice', scope: 'bank:read', clearance: 'internal' };
const PUBLISHER = { sub: 'ci', scope: 'estate:publish', clearance: 'internal' };
const BOB = { id: 'bob', scopes: ['bank:read', 'bank:write'], clearance: 'confidential' };

interface Discovered {
  principal: string;
  tools: Array<{ name: string; version: string; status: string }>;
}

describe('discovery over HTTP (real Kafka and PostgreSQL)', () => {
  const logger = createLogger('discovery-int', 'error');
  const stops: Array<() => Promise<void>> = [];
  const [lookup, transfer, release] = bankSpecs('pay');
  const tokens = { admin: '', alice: '', publisher: '' };
  let registryUrl: string;
  let discoveryUrl: string;
  let bus: KafkaEventBus;
  let eventsTopic: string;

  const post = (path: string, body: unknown, who = tokens.admin) => http('POST', `${registryUrl}${path}`, who, body);
  const discover = async (who: string, body?: unknown): Promise<{ status: number; body: Discovered & Record<string, unknown> }> =>
    (await http('POST', `${discoveryUrl}/v1/discover`, who, body)) as { status: number; body: Discovered & Record<string, unknown> };
  const catalog = async (): Promise<CatalogEntry[]> => ((await http('GET', `${discoveryUrl}/v1/catalog`, tokens.admin)).body.tools ?? []) as CatalogEntry[];
  const entry = async (name: string) => (await catalog()).find((t) => t.name === name);
  const seen = (names: Discovered['tools']) => names.map((t) => `${t.name}@${t.version}:${t.status}`);

  beforeAll(async () => {
    const db = await createTestDatabase();
    stops.push(db.drop);
    const prefix = randomTopicPrefix();
    eventsTopic = topicName(prefix, 'registryEvents');
    const env = {
      ESTATE_JWT_SECRET: TEST_SECRET, ESTATE_TOPIC_PREFIX: prefix, KAFKA_BROKERS: kafkaBrokers().join(','),
      ESTATE_REGISTRY_PORT: '0', ESTATE_DISCOVERY_PORT: '0', ESTATE_DISCOVERY_GROUP: `discovery-int-${randomUUID()}`,
    };
    bus = new KafkaEventBus({ brokers: kafkaBrokers(), clientId: 'discovery-int', logger });
    stops.push(() => bus.close());
    const registry = await startRegistry({ ...loadRegistryConfig(env), databaseUrl: db.url }, bus, logger);
    const discovery = await startDiscovery({ ...loadDiscoveryConfig(env), databaseUrl: db.url }, bus, logger);
    stops.push(registry.stop, discovery.stop);
    registryUrl = registry.url;
    discoveryUrl = discovery.url;
    tokens.admin = await token(ADMIN);
    tokens.alice = await token(ALICE);
    tokens.publisher = await token(PUBLISHER);

    // pay.lookup: 1.0.0 deprecated, 1.1.0 active. pay.transfer: 1.0.0 active, 1.1.0 retired. pay.release: retired only.
    expect((await post('/v1/servers', { name: 'pay', url: 'http://127.0.0.1:1/mcp', owner: 'payments-team' })).status).toBe(201);
    for (const spec of [lookup, { ...lookup, version: '1.1.0', title: 'Find a payment' }, transfer, { ...transfer, version: '1.1.0', title: 'Move money' }, release]) {
      expect((await post('/v1/tools', spec)).status).toBe(201);
    }
    expect((await post('/v1/tools/pay.lookup/versions/1.0.0/deprecate', { reason: 'use 1.1.0', replacement: '1.1.0' })).status).toBe(200);
    expect((await post('/v1/tools/pay.transfer/versions/1.1.0/retire', { reason: 'bad release' })).status).toBe(200);
    expect((await post('/v1/tools/pay.release/versions/1.0.0/retire', { reason: 'withdrawn' })).status).toBe(200);
    await waitFor(async () => ((await entry('pay.release'))?.versions[0]?.status === 'retired' ? true : undefined), 'discovery to catch up', 60000);
  }, 120000);

  afterAll(async () => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  });

  describe('POST /v1/discover', () => {
    it("answers for the caller's own principal: its newest visible active versions, retired never", async () => {
      expect(await discover(tokens.alice)).toEqual({ status: 200, body: { principal: 'alice', tools: [expect.objectContaining({ name: 'pay.lookup', version: '1.1.0', status: 'active' })] } });
      // The tool list is the MCP projection: governance metadata never leaves discovery.
      const [tool] = (await discover(tokens.alice)).body.tools as unknown as Array<Record<string, unknown>>;
      expect(tool).not.toHaveProperty('requiredScopes');
      expect(tool).not.toHaveProperty('tenants');
    });

    it('lets an admin ask on behalf of another principal', async () => {
      const response = await discover(tokens.admin, { principal: BOB });
      expect(response.status).toBe(200);
      expect(response.body.principal).toBe('bob');
      expect(seen(response.body.tools)).toEqual(['pay.lookup@1.1.0:active', 'pay.transfer@1.0.0:active']);
    });

    it('refuses a non-admin asking for someone else, and never widens a non-admin to the rights written in the body', async () => {
      expect(await discover(tokens.alice, { principal: BOB })).toMatchObject({ status: 403, body: { error: 'FORBIDDEN' } });
      const self = await discover(tokens.alice, { principal: { id: 'alice', scopes: ['bank:read', 'bank:write'], clearance: 'restricted' } });
      expect(seen(self.body.tools)).toEqual(['pay.lookup@1.1.0:active']);
    });

    it('honours pins: a deprecated version by a pin that admits no active one (exact or range), a retired one never', async () => {
      const pinned = (pins: Record<string, string>) => discover(tokens.admin, { principal: BOB, pins }).then((r) => seen(r.body.tools));
      expect(await pinned({ 'pay.lookup': '1.0.0' })).toEqual(['pay.lookup@1.0.0:deprecated', 'pay.transfer@1.0.0:active']);
      expect(await pinned({ 'pay.lookup': '^1.0.0' })).toEqual(['pay.lookup@1.1.0:active', 'pay.transfer@1.0.0:active']);
      // The range admits only the deprecated 1.0.0: a pinned caller keeps it through the migration window.
      expect(await pinned({ 'pay.lookup': '<1.1.0' })).toEqual(['pay.lookup@1.0.0:deprecated', 'pay.transfer@1.0.0:active']);
      expect(await pinned({ 'pay.transfer': '1.1.0', 'pay.release': '1.0.0' })).toEqual(['pay.lookup@1.1.0:active']);
    });

    it('refuses malformed bodies with 400 and every problem with its path', async () => {
      const response = await discover(tokens.admin, {
        principal: { id: '', scopes: 'bank:read', clearance: 'secret', role: 'x' },
        pins: { 'pay.lookup': 'latest', 'pay.transfer': 3 },
        extra: true,
      });
      expect(response.status).toBe(400);
      expect(response.body.error).toBe('INVALID_REQUEST');
      expect((response.body.details as { issues: Array<{ path: string }> }).issues.map((i) => i.path)).toEqual([
        '$.extra', '$.pins["pay.lookup"]', '$.pins["pay.transfer"]', '$.principal.clearance', '$.principal.id', '$.principal.role', '$.principal.scopes',
      ]);
      expect((await discover(tokens.admin, { pins: ['^1.0.0'] })).body.details).toEqual({ issues: [{ path: '$.pins', message: expect.any(String) }] });
      expect((await discover(tokens.admin, [])).status).toBe(400);
    });
  });

  describe('GET /v1/catalog and POST /v1/rebuild', () => {
    it('shows the full catalog only to admins and publishers', async () => {
      expect(await http('GET', `${discoveryUrl}/v1/catalog`, tokens.alice)).toMatchObject({ status: 403, body: { error: 'FORBIDDEN' } });
      const forPublisher = await http('GET', `${discoveryUrl}/v1/catalog`, tokens.publisher);
      expect(forPublisher.status).toBe(200);
      expect((forPublisher.body.tools as CatalogEntry[]).map((t) => t.name)).toEqual(['pay.lookup', 'pay.release', 'pay.transfer']);
      expect((await http('GET', `${discoveryUrl}/v1/catalog`, undefined)).status).toBe(401);
    });

    it('rebuilds for admins only, and the rebuilt projection equals the live one', async () => {
      expect(await http('POST', `${discoveryUrl}/v1/rebuild`, tokens.publisher)).toMatchObject({ status: 403, body: { error: 'FORBIDDEN' } });
      const before = (await http('GET', `${discoveryUrl}/v1/catalog`, tokens.admin)).body;
      const rebuilt = await http('POST', `${discoveryUrl}/v1/rebuild`, tokens.admin);
      expect(rebuilt).toMatchObject({ status: 200, body: { tools: 3, servers: 1 } });
      expect((await http('GET', `${discoveryUrl}/v1/catalog`, tokens.admin)).body).toEqual(before);
    });
  });

  describe('the registry event consumer', () => {
    const spec: ToolSpec = { ...lookup, name: 'pay.echo' };
    const envelope = (position: number, type: string, data: unknown): EventEnvelope => ({
      id: randomUUID(), type, version: 1, stream: 'tool:pay.echo', position,
      occurredAt: '2026-01-01T00:00:00.000Z', actor: 'test', correlationId: 'c', data,
    });
    const send = (...values: Array<EventEnvelope | string>) =>
      bus.publish(eventsTopic, values.map((v) => ({ key: 'tool:pay.echo', value: typeof v === 'string' ? v : JSON.stringify(v) })));

    it('applies a redelivered event once: a replayed publish does not undo a later deprecation', async () => {
      const first = envelope(0, 'ToolVersionPublished', { spec, bump: 'initial', changes: [] });
      const deprecation = envelope(1, 'ToolVersionDeprecated', { name: 'pay.echo', version: '1.0.0', reason: 'old' });
      await send(first, deprecation, first);
      // A later event is the sync point: once it shows, both redeliveries were handled before it.
      await send(envelope(2, 'ToolVersionPublished', { spec: { ...spec, version: '1.1.0' }, bump: 'minor', changes: [] }));
      const echo = await waitFor(async () => {
        const found = await entry('pay.echo');
        return found?.versions.length === 2 ? found : undefined;
      }, 'pay.echo@1.1.0 in the catalog', 30000);
      expect(echo.position).toBe(2);
      expect(echo.versions.map((v) => [v.version, v.status])).toEqual([['1.0.0', 'deprecated'], ['1.1.0', 'active']]);
    });

    it('skips poison messages and goes on with the next event', async () => {
      await send(
        'not json at all',
        '{"stream": "tool:pay.echo"}',
        envelope(3, 'ToolVersionExploded', { name: 'pay.echo' }),
        envelope(3, 'ToolVersionRetired', { name: 'pay.echo' }),
        { ...envelope(0, 'ToolVersionDeprecated', { name: 'pay.ghost', version: '1.0.0', reason: 'x' }), stream: 'tool:pay.ghost' },
        envelope(3, 'ToolVersionRetired', { name: 'pay.echo', version: '1.1.0', reason: 'after the poison' }),
      );
      const echo = await waitFor(async () => {
        const found = await entry('pay.echo');
        return found?.position === 3 ? found : undefined;
      }, 'the retirement after the poison messages', 30000);
      expect(echo.versions.map((v) => [v.version, v.status])).toEqual([['1.0.0', 'deprecated'], ['1.1.0', 'retired']]);
      expect(await entry('pay.ghost')).toBeUndefined();
      const before = await catalog();
      expect((await http('POST', `${discoveryUrl}/v1/rebuild`, tokens.admin)).status).toBe(200);
      expect(await catalog()).toEqual(before);
    });
  });
});
