import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import pino from 'pino';
import { catalogTopicSpec, estateTopics, KafkaEventBus } from '@estate/platform';
import type { CatalogEntry, EventEnvelope } from '@estate/events';
import { bankSpecs } from '../examples/bank/bank.specs';
import { ADMIN, connect, http, TEST_SECRET, token, waitFor } from './support/estate.harness';
import { createTestDatabase, kafkaBrokers, randomTopicPrefix } from './support/infra';
import { loadRegistryConfig } from '../apps/registry/src/config';
import { startRegistry } from '../apps/registry/src/registry.app';
import { loadDiscoveryConfig } from '../apps/discovery/src/config';
import { startDiscovery } from '../apps/discovery/src/discovery.app';
import { loadEdgeConfig } from '../apps/mcp-edge/src/config';
import { startEdge } from '../apps/mcp-edge/src/edge.app';

/** A logger whose warnings the test can read. */
function capturingLogger() {
  const lines: Array<{ msg: string }> = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(JSON.parse(line) as { msg: string }) });
  return { logger, lines };
}

const publishedEnvelope = (tool: string): EventEnvelope => {
  const [spec] = bankSpecs('pay');
  return {
    id: randomUUID(), type: 'ToolVersionPublished', version: 1, stream: `tool:${tool}`, position: 0,
    occurredAt: '2026-01-01T00:00:00.000Z', actor: 'test', correlationId: 'c',
    data: { spec: { ...spec, name: tool }, bump: 'initial', changes: [] },
  };
};

describe('discovery checks that the log still holds what it applied (real Kafka and PostgreSQL)', () => {
  const admin = new Kafka({ clientId: 'log-identity-int', brokers: kafkaBrokers(), logLevel: logLevel.NOTHING }).admin();
  const cleanups: Array<() => Promise<void>> = [];
  let adminToken: string;

  beforeAll(async () => {
    await admin.connect();
    adminToken = await token(ADMIN);
  });
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    await admin.disconnect();
  });

  async function setup() {
    const db = await createTestDatabase();
    cleanups.push(db.drop);
    const prefix = randomTopicPrefix();
    const specs = estateTopics(prefix, 3_600_000);
    const env = {
      ESTATE_JWT_SECRET: TEST_SECRET, ESTATE_TOPIC_PREFIX: prefix, ESTATE_REGISTRY_PORT: '0', ESTATE_DISCOVERY_PORT: '0',
      ESTATE_DISCOVERY_GROUP: `identity-${randomUUID()}`,
    };
    const { logger, lines } = capturingLogger();
    const bus = new KafkaEventBus({ brokers: kafkaBrokers(), clientId: 'log-identity-int', logger });
    cleanups.push(() => bus.close());
    const start = async () => {
      const discovery = await startDiscovery({ ...loadDiscoveryConfig(env), databaseUrl: db.url }, bus, logger);
      cleanups.push(discovery.stop);
      return discovery;
    };
    const send = (...envelopes: EventEnvelope[]) =>
      bus.publish(specs.registryEvents.name, envelopes.map((e) => ({ key: e.stream, value: JSON.stringify(e), headers: { 'estate-id': e.id } })));
    const recreate = async () => {
      await admin.deleteTopics({ topics: [specs.registryEvents.name] });
      await waitFor(async () => !(await admin.listTopics()).includes(specs.registryEvents.name) || undefined, 'the topic deleted');
      await bus.ensureTopics([specs.registryEvents]);
    };
    const names = async (url: string) =>
      ((await http('GET', `${url}/v1/catalog`, adminToken)).body.tools as CatalogEntry[]).map((t) => t.name).sort();
    return { start, send, recreate, names, lines, env, bus, logger, databaseUrl: db.url };
  }

  it('notices at start that the log was recreated and grew past its position, and re-reads it from the start', async () => {
    const t = await setup();
    let discovery = await t.start();
    await t.send(publishedEnvelope('old.a'), publishedEnvelope('old.b'), publishedEnvelope('old.c'));
    await waitFor(async () => ((await t.names(discovery.url)).length === 3 ? true : undefined), 'the first three tools', 30000);
    await discovery.stop();

    // The new log holds more messages than discovery read from the old one: only the event ids tell them apart.
    await t.recreate();
    const fresh = ['new.a', 'new.b', 'new.c', 'new.d', 'new.e'].map(publishedEnvelope);
    await t.send(...fresh);
    discovery = await t.start();
    const all = ['new.a', 'new.b', 'new.c', 'new.d', 'new.e', 'old.a', 'old.b', 'old.c'];
    await waitFor(async () => ((await t.names(discovery.url)).length === all.length ? true : undefined), 'every tool, old and new', 30000);
    expect(await t.names(discovery.url)).toEqual(all);
    const said = t.lines.filter((l) => /registry log was reset, truncated or recreated/.test(l.msg));
    expect(said).toHaveLength(1);
    expect(said[0].msg).toMatch(/not .*: the log was recreated/);
  });

  it('notices while running that the log was recreated shorter than its position, and applies what the new log holds', async () => {
    const t = await setup();
    const discovery = await t.start();
    await t.send(...['old.a', 'old.b', 'old.c', 'old.d'].map(publishedEnvelope));
    await waitFor(async () => ((await t.names(discovery.url)).length === 4 ? true : undefined), 'the first four tools', 30000);

    await t.recreate();
    await t.send(publishedEnvelope('new.a'));
    await waitFor(async () => ((await t.names(discovery.url)).includes('new.a') ? true : undefined), 'the tool published on the new log', 60000);
    expect(await t.names(discovery.url)).toEqual(['new.a', 'old.a', 'old.b', 'old.c', 'old.d']);
    expect(t.lines.some((l) => /registry log was reset, truncated or recreated/.test(l.msg))).toBe(true);

    // With no event store to read, a rebuild must not fold the short log over the full catalog.
    const rebuilt = await http('POST', `${discovery.url}/v1/rebuild`, adminToken);
    expect(rebuilt).toMatchObject({ status: 503, body: { error: 'REBUILD_UNAVAILABLE', message: expect.stringMatching(/holds 1 messages .* fewer than the 5 events/) } });
    expect(await t.names(discovery.url)).toEqual(['new.a', 'old.a', 'old.b', 'old.c', 'old.d']);
  });

  it('rebuilds from the event store when the log lost events, and the result equals a fresh fold', async () => {
    const t = await setup();
    const registry = await startRegistry({ ...loadRegistryConfig(t.env), databaseUrl: t.databaseUrl }, t.bus, t.logger);
    cleanups.push(registry.stop);
    const discovery = await startDiscovery({ ...loadDiscoveryConfig(t.env), registryUrl: registry.url, databaseUrl: t.databaseUrl }, t.bus, t.logger);
    cleanups.push(discovery.stop);
    const [lookup, transfer] = bankSpecs('pay');
    expect((await http('POST', `${registry.url}/v1/servers`, adminToken, { name: 'pay', url: 'http://127.0.0.1:1/mcp', owner: 'ops' })).status).toBe(201);
    for (const spec of [lookup, transfer, { ...lookup, version: '1.1.0', title: 'Find a payment' }]) {
      expect((await http('POST', `${registry.url}/v1/tools`, adminToken, spec)).status).toBe(201);
    }
    // Every publish applied, the second version of pay.lookup included, before the catalog is taken as the reference.
    const applied = async () => {
      const catalog = (await http('GET', `${discovery.url}/v1/catalog`, adminToken)).body as { tools: Array<{ name: string; versions: unknown[] }> };
      return catalog.tools.length === 2 && catalog.tools.find((tool) => tool.name === 'pay.lookup')?.versions.length === 2 ? true : undefined;
    };
    await waitFor(applied, 'all three publishes applied', 30000);
    const before = (await http('GET', `${discovery.url}/v1/catalog`, adminToken)).body;

    // The relay stops first, so nothing re-sends the store into the new, empty log.
    await registry.relay.stop();
    await t.recreate();
    const rebuilt = await http('POST', `${discovery.url}/v1/rebuild`, adminToken);
    expect(rebuilt).toMatchObject({ status: 200, body: { source: 'event store', events: 4, tools: 2, servers: 1 } });
    expect((await http('GET', `${discovery.url}/v1/catalog`, adminToken)).body).toEqual(before);
    expect(await http('GET', `${discovery.url}/v1/verify`, adminToken)).toMatchObject({ status: 200, body: { equal: true, events: 4, differences: [] } });
    expect((await http('GET', `${registry.url}/v1/events`, await token({ sub: 'ci', scope: 'estate:publish' }))).status).toBe(403);
    expect((await http('GET', `${registry.url}/v1/events?limit=0`, adminToken)).status).toBe(400);
  });

  it('rebuilds from the event store by itself when events it never read were deleted from the log', async () => {
    const t = await setup();
    const registry = await startRegistry({ ...loadRegistryConfig(t.env), databaseUrl: t.databaseUrl }, t.bus, t.logger);
    cleanups.push(registry.stop);
    const start = async () => {
      const discovery = await startDiscovery({ ...loadDiscoveryConfig(t.env), registryUrl: registry.url, databaseUrl: t.databaseUrl }, t.bus, t.logger);
      cleanups.push(discovery.stop);
      return discovery;
    };
    const [lookup, transfer, release] = bankSpecs('pay');
    const publish = async (spec: unknown) => expect((await http('POST', `${registry.url}/v1/tools`, adminToken, spec)).status).toBe(201);
    expect((await http('POST', `${registry.url}/v1/servers`, adminToken, { name: 'pay', url: 'http://127.0.0.1:1/mcp', owner: 'ops' })).status).toBe(201);
    await publish(lookup);
    let discovery = await start();
    await waitFor(async () => ((await t.names(discovery.url)).length === 1 ? true : undefined), 'the first tool', 30000);
    await discovery.stop();

    // While discovery is away, two more tools are published, then the log is truncated past them (retention would do this).
    await publish(transfer);
    await publish(release);
    await waitFor(async () => ((await t.bus.offsets(t.env.ESTATE_TOPIC_PREFIX + 'estate.registry.events'))[0].high === '4' ? true : undefined), 'the relay caught up', 30000);
    await admin.fetchTopicMetadata({ topics: [`${t.env.ESTATE_TOPIC_PREFIX}estate.registry.events`] });
    await admin.deleteTopicRecords({ topic: `${t.env.ESTATE_TOPIC_PREFIX}estate.registry.events`, partitions: [{ partition: 0, offset: '4' }] });
    discovery = await start();
    await waitFor(async () => ((await t.names(discovery.url)).length === 3 ? true : undefined), 'every tool, rebuilt from the store', 30000);
    expect(await t.names(discovery.url)).toEqual(['pay.lookup', 'pay.release', 'pay.transfer']);
    expect(t.lines.some((l) => /events were deleted unread/.test(l.msg))).toBe(true);
  });

  it('publishes the whole catalog again to a catalog topic deleted under it, and verify says when the topic does not hold the catalog', async () => {
    const t = await setup();
    const registry = await startRegistry({ ...loadRegistryConfig(t.env), databaseUrl: t.databaseUrl }, t.bus, t.logger);
    cleanups.push(registry.stop);
    const discovery = await startDiscovery({ ...loadDiscoveryConfig(t.env), registryUrl: registry.url, databaseUrl: t.databaseUrl }, t.bus, t.logger);
    cleanups.push(discovery.stop);
    const catalogTopic = `${t.env.ESTATE_TOPIC_PREFIX}estate.catalog`;
    const [lookup] = bankSpecs('pay');
    const tools = ['pay.a', 'pay.b', 'pay.c', 'pay.d', 'pay.e'];
    expect((await http('POST', `${registry.url}/v1/servers`, adminToken, { name: 'pay', url: 'http://127.0.0.1:1/mcp', owner: 'ops' })).status).toBe(201);
    for (const name of tools) expect((await http('POST', `${registry.url}/v1/tools`, adminToken, { ...lookup, name })).status).toBe(201);
    await waitFor(async () => ((await t.names(discovery.url)).length === 5 ? true : undefined), 'the five tools', 30000);
    expect(await http('GET', `${discovery.url}/v1/verify`, adminToken)).toMatchObject({
      status: 200, body: { ok: true, equal: true, catalogTopic: { topic: catalogTopic, reachable: true, equal: true, differences: [] } },
    });

    // The tools whose newest head record the topic holds: what a new edge copy reads.
    const headsOnTopic = async () => {
      const heads = new Map<string, string | null>();
      for (const { partition, low, high } of await t.bus.offsets(catalogTopic).catch(() => [])) {
        for (const m of await t.bus.readPage!(catalogTopic, partition, low, Number(BigInt(high) - BigInt(low)))) if (m.key && !m.key.includes('@')) heads.set(m.key, m.value);
      }
      return [...heads].filter(([, value]) => value !== null).map(([key]) => key).sort();
    };
    await admin.deleteTopics({ topics: [catalogTopic] });
    const lostAt = Date.now();
    await waitFor(async () => ((await headsOnTopic()).length === 5 ? true : undefined), 'the whole catalog on the topic again', 30000);
    const refilledMs = Date.now() - lostAt;
    process.stderr.write(`[discovery-log-identity] catalog topic deleted: whole again after ${refilledMs} ms\n`);
    expect(refilledMs).toBeLessThan(10000);
    expect(t.lines.some((l) => /catalog topic .* no longer exists: it was deleted, recreated or truncated; publishing the whole catalog/.test(l.msg))).toBe(true);
    // A new edge copy joining now serves every tool.
    const edge = await startEdge(loadEdgeConfig({ ...t.env, ESTATE_EDGE_PORT: '0', ESTATE_EDGE_GROUP: `identity-edge-${randomUUID()}` }), t.bus, t.logger);
    cleanups.push(edge.stop);
    const agent = await connect(edge.mcpUrl, await token({ sub: 'agent', scope: 'bank:read', clearance: 'internal' }));
    cleanups.push(agent.close);
    expect((await agent.client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(tools);
    expect((await http('GET', `${discovery.url}/v1/verify`, adminToken)).body).toMatchObject({ ok: true, catalogTopic: { equal: true } });

    // A record discovery did not write (the topic's end only grows): verify names what an edge would miss.
    await t.bus.publish(catalogTopic, [{ key: 'pay.c', value: null }]);
    expect(await http('GET', `${discovery.url}/v1/verify`, adminToken)).toMatchObject({
      status: 200,
      body: { ok: false, equal: true, differences: [], catalogTopic: { equal: false, differences: ['tool pay.c: withdrawn (a tombstone) on the topic, so no edge serves it'] } },
    });

    // Deleted and at once created again empty (as an edge's consumer does when its topic vanished): the whole catalog again,
    // which supersedes the stray tombstone.
    await admin.deleteTopics({ topics: [catalogTopic] });
    await waitFor(async () => (!(await admin.listTopics()).includes(catalogTopic) || undefined), 'the topic deleted');
    await t.bus.ensureTopics([catalogTopicSpec(catalogTopic)]);
    await waitFor(async () => ((await headsOnTopic()).length === 5 ? true : undefined), 'the whole catalog on the recreated topic', 30000);
    expect(t.lines.some((l) => /catalog topic .* holds \d+ records where discovery had put \d+/.test(l.msg))).toBe(true);
    expect((await http('GET', `${discovery.url}/v1/verify`, adminToken)).body).toMatchObject({ ok: true, catalogTopic: { equal: true } });
  });
});
