import { randomUUID } from 'node:crypto';
import { topicName, type CatalogEntry } from '@estate/events';
import { createLogger } from '@estate/platform';
import { composeEstate } from '../apps/estate/src/estate.composition';
import { startBankServer, type BankServerHandle } from '../examples/bank/bank.server';
import { bankSpecs } from '../examples/bank/bank.specs';
import { ALICE, BOB } from './support/edge-stack';
import { ADMIN, connect, http, TEST_SECRET, token, waitFor, type McpSession } from './support/estate.harness';
import { ACCEPT_BOTH } from './support/edge-wire';
import { createTestDatabase, kafkaBrokers, randomTopicPrefix } from './support/infra';
import { auditTrail, partitionHolders, startCopies, type ServiceCopy } from './support/process-fleet';

/**
 * Two edges, two discoveries and two audits, each its own process, on one Kafka and one
 * PostgreSQL database, with the registry once: what an operator gets with `replicas: 2`.
 */
describe('several copies of edge, discovery and audit at once', () => {
  const stops: Array<() => Promise<void>> = [];
  const logger = createLogger('scale-out-e2e', 'error');
  let env: Record<string, string>;
  let registryUrl: string;
  let bank: BankServerHandle;
  let edges: ServiceCopy[];
  let discoveries: ServiceCopy[];
  let audits: ServiceCopy[];
  let admin: string;
  let calls = 0;
  const sessions: McpSession[] = [];
  const [lookup, , release] = bankSpecs('bank');
  const TELLER = { sub: 'teller', scope: 'bank:read bank:write bank:release', clearance: 'confidential' };
  const V2026 = '2026-07-28';

  /** One MCP 2026-07-28 request as a client without any session sends it: everything it needs rides along. */
  async function stateless(edge: ServiceCopy, claims: typeof ALICE, id: number, method: string, params: Record<string, unknown> = {}) {
    const meta = { 'io.modelcontextprotocol/protocolVersion': V2026, 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} }, 'io.modelcontextprotocol/clientInfo': { name: 'scale-out', version: '1' } };
    const name: Record<string, string> = method === 'tools/call' ? { 'mcp-name': params.name as string } : {};
    const response = await fetch(`${edge.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await token(claims)}`, 'content-type': 'application/json', accept: ACCEPT_BOTH, 'mcp-protocol-version': V2026, 'mcp-method': method, ...name },
      body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: meta } }),
    });
    const body = (await response.json()) as { id: number; result?: Record<string, unknown>; error?: unknown };
    return { status: response.status, session: response.headers.get('mcp-session-id'), body };
  }

  async function publishLookup(version: string): Promise<void> {
    const r = await http('POST', `${registryUrl}/v1/tools`, admin, { ...lookup, version, description: `${lookup.description} (${version})` });
    expect(r.status).toBe(201);
  }

  async function session(edge: ServiceCopy, claims: typeof ALICE): Promise<McpSession> {
    const opened = await connect(`${edge.url}/mcp`, await token(claims));
    sessions.push(opened);
    return opened;
  }

  async function callLookup(client: McpSession): Promise<void> {
    const result = await client.client.callTool({ name: 'bank.lookup', arguments: { reference: 'PMT-771' } });
    expect(result.isError).toBeFalsy();
    calls += 1;
  }

  /** A 2026-07-28 subscriptions/listen stream on one edge; `text()` is everything it sent so far. */
  async function listen(edge: ServiceCopy, claims: typeof ALICE) {
    const meta = { 'io.modelcontextprotocol/protocolVersion': V2026, 'io.modelcontextprotocol/clientCapabilities': {} };
    const aborted = new AbortController();
    const response = await fetch(`${edge.url}/mcp`, {
      method: 'POST',
      signal: aborted.signal,
      headers: { authorization: `Bearer ${await token(claims)}`, 'content-type': 'application/json', accept: ACCEPT_BOTH, 'mcp-protocol-version': V2026, 'mcp-method': 'subscriptions/listen' },
      body: JSON.stringify({ jsonrpc: '2.0', id: `listen-${edge.pid}`, method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true }, _meta: meta } }),
    });
    expect(response.status).toBe(200);
    let text = '';
    const decoder = new TextDecoder();
    void (async () => {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) text += decoder.decode(chunk, { stream: true });
    })().catch(() => undefined);
    await waitFor(async () => (text.includes('subscriptions/acknowledged') ? true : undefined), 'the listen stream to be acknowledged');
    stops.push(async () => aborted.abort());
    return { text: () => text };
  }

  beforeAll(async () => {
    admin = await token(ADMIN);
    const db = await createTestDatabase();
    stops.push(db.drop);
    bank = await startBankServer({ port: 0 });
    stops.push(bank.close);
    const run = randomUUID().slice(0, 8);
    env = {
      DATABASE_URL: db.url,
      KAFKA_BROKERS: kafkaBrokers().join(','),
      ESTATE_TOPIC_PREFIX: randomTopicPrefix(),
      ESTATE_JWT_SECRET: TEST_SECRET,
      ESTATE_REGISTRY_PORT: '0',
      // Copies of one service share its group; the edge adds a suffix of its own to this prefix.
      ESTATE_DISCOVERY_GROUP: `scale-discovery-${run}`,
      ESTATE_AUDIT_GROUP: `scale-audit-${run}`,
      ESTATE_EDGE_GROUP: `scale-edge-${run}`,
      // Every edge copy seals and opens 2026-07-28 request states with the same key.
      ESTATE_REQUEST_STATE_KEY: randomUUID() + randomUUID(),
      // ...and record the states they acted on in one place, so each is acted on once.
      ESTATE_EDGE_DATABASE_URL: db.url,
    };
    const registry = await composeEstate({ env, databaseUrl: db.url, logger, services: ['registry'] });
    stops.push(registry.stop);
    registryUrl = registry.registry?.url ?? '';
    const copyEnv = { ...env, ESTATE_REGISTRY_URL: registryUrl };
    [discoveries, audits, edges] = await Promise.all([
      startCopies('discovery', 2, copyEnv), startCopies('audit', 2, copyEnv), startCopies('mcp-edge', 2, copyEnv),
    ]);
    for (const copy of [...discoveries, ...audits, ...edges]) stops.push(() => copy.child.stop());
    expect((await http('POST', `${registryUrl}/v1/servers`, admin, { name: 'bank', url: bank.url, owner: 'payments-team' })).status).toBe(201);
    await publishLookup('1.0.0');
    expect((await http('POST', `${registryUrl}/v1/tools`, admin, release)).status).toBe(201);
  }, 120000);

  afterAll(async () => {
    for (const opened of sessions) await opened.close().catch(() => undefined);
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  });

  it('a session lives on the edge that opened it: it works there, and the other edge answers 404 for its id', async () => {
    const [a, b] = edges;
    const alice = await session(a, ALICE);
    await waitFor(async () => ((await alice.client.listTools()).tools.some((t) => t.name === 'bank.lookup') ? true : undefined), 'bank.lookup on edge A');
    await callLookup(alice);
    const sessionId = (alice.client.transport as { sessionId?: string } | undefined)?.sessionId;
    expect(sessionId).toEqual(expect.any(String));

    const elsewhere = await fetch(`${b.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await token(ALICE)}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream',
        'mcp-session-id': sessionId as string, 'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} }),
    });
    expect(elsewhere.status).toBe(404);
    expect(await elsewhere.json()).toMatchObject({ jsonrpc: '2.0', error: { code: expect.any(Number) } });
    // Edge B's refusal changed nothing on edge A.
    await callLookup(alice);
  });

  it('a 2026-07-28 client sends consecutive requests to alternating edges and every answer is right, a confirmation asked on one included', async () => {
    const at = (i: number) => edges[i % 2];
    await waitFor(async () => {
      const lists = await Promise.all(edges.map((edge, i) => stateless(edge, TELLER, i, 'tools/list')));
      return lists.every((l) => (l.body.result?.tools as Array<{ name: string }> | undefined)?.some((t) => t.name === 'bank.release')) ? true : undefined;
    }, 'bank.release on both edges');
    const served = bank.stats().total;
    for (let i = 0; i < 6; i += 1) {
      const answer = await stateless(at(i), TELLER, 100 + i, 'tools/call', { name: 'bank.lookup', arguments: { reference: 'PMT-771' } });
      expect({ i, status: answer.status, session: answer.session }).toEqual({ i, status: 200, session: null });
      expect(answer.body).toMatchObject({ id: 100 + i, result: { resultType: 'complete', structuredContent: { reference: 'PMT-771' } } });
      expect(answer.body.result?.isError).toBeFalsy();
      calls += 1;
      const listed = await stateless(at(i + 1), TELLER, 200 + i, 'tools/list');
      expect(listed.body).toMatchObject({ id: 200 + i, result: { resultType: 'complete' } });
      expect((listed.body.result?.tools as Array<{ name: string }>).map((t) => t.name)).toEqual(['bank.lookup', 'bank.release']);
    }
    expect(bank.stats().total).toBe(served + 6);

    // A destructive call: edge A asks for confirmation, edge B runs it on the sealed state A issued.
    const args = { name: 'bank.release', arguments: { reference: 'PMT-900' } };
    const releasedBefore = bank.stats().calls['release'] ?? 0;
    const asked = await stateless(at(0), TELLER, 300, 'tools/call', args);
    const question = asked.body.result as { resultType: string; inputRequests: Record<string, unknown>; requestState: string };
    expect(question.resultType).toBe('input_required');
    const [key] = Object.keys(question.inputRequests);
    const confirmed = await stateless(at(1), TELLER, 301, 'tools/call', { ...args, requestState: question.requestState, inputResponses: { [key]: { action: 'accept', content: {} } } });
    expect(confirmed.body).toMatchObject({ id: 301, result: { resultType: 'complete', structuredContent: { reference: 'PMT-900', status: 'released' } } });
    calls += 1;
    expect(bank.stats().calls['release']).toBe(releasedBefore + 1);
  });

  it('an accepted 2026-07-28 retry replayed to the other edge is refused there as on its own edge, and the tool ran once', async () => {
    const args = { name: 'bank.release', arguments: { reference: 'PMT-901' } };
    const releasedBefore = bank.stats().calls['release'] ?? 0;
    const asked = await stateless(edges[0], TELLER, 400, 'tools/call', args);
    const question = asked.body.result as { inputRequests: Record<string, unknown>; requestState: string };
    const [key] = Object.keys(question.inputRequests);
    const retry = { ...args, requestState: question.requestState, inputResponses: { [key]: { action: 'accept', content: {} } } };
    const confirmed = await stateless(edges[0], TELLER, 401, 'tools/call', retry);
    expect(confirmed.body).toMatchObject({ id: 401, result: { resultType: 'complete', structuredContent: { reference: 'PMT-901', status: 'released' } } });
    calls += 1;
    // Copied off the wire and sent again, to the edge that did not run it and to the one that did.
    const elsewhere = await stateless(edges[1], TELLER, 402, 'tools/call', retry);
    const same = await stateless(edges[0], TELLER, 403, 'tools/call', retry);
    expect(elsewhere.body).toMatchObject({ id: 402, error: { code: -32602, message: expect.stringContaining('requestState') } });
    expect(same.body).toMatchObject({ id: 403, error: (elsewhere.body as { error: unknown }).error });
    expect(elsewhere.body.result).toBeUndefined();
    expect(bank.stats().calls['release']).toBe(releasedBefore + 1);
  });

  it('a publish reaches list_changed subscribers on both edges, sessions and 2026-07-28 listen streams alike', async () => {
    const [a, b] = edges;
    const onA = await session(a, ALICE);
    const onB = await session(b, BOB);
    for (const s of [onA, onB]) {
      await waitFor(async () => ((await s.client.listTools()).tools.some((t) => t.name === 'bank.lookup') ? true : undefined), 'bank.lookup on both edges');
    }
    await callLookup(onB);
    const listeners = [await listen(a, ALICE), await listen(b, ALICE)];
    await publishLookup('1.1.0');
    await waitFor(async () => (onA.listChanged.length > 0 && onB.listChanged.length > 0 ? true : undefined), 'list_changed on edge A and on edge B', 30000);
    // 2026-07-28 clients hear it on the listen stream of whichever copy they opened it on.
    for (const listener of listeners) {
      await waitFor(async () => (listener.text().includes('notifications/tools/list_changed') ? true : undefined), 'list_changed on both listen streams', 30000);
    }
    for (const s of [onA, onB]) {
      const listed = (await s.client.listTools()).tools.find((t) => t.name === 'bank.lookup');
      expect(listed?.description).toContain('(1.1.0)');
    }
  });

  it('SIGKILL of the discovery that holds the log hands it to the other copy: its catalog ends equal to what was published', async () => {
    const TOOLS = 4;
    const VERSIONS = 6;
    const topic = topicName(env.ESTATE_TOPIC_PREFIX, 'registryEvents');
    const holders = await waitFor(async () => {
      const found = await partitionHolders(env.ESTATE_DISCOVERY_GROUP, topic);
      return found.size > 0 ? found : undefined;
    }, 'a discovery copy to hold the registry log', 30000);
    const holderPid = holders.get(0);
    const victim = discoveries.find((d) => d.pid === holderPid);
    const survivor = discoveries.find((d) => d.pid !== holderPid) as ServiceCopy;
    expect(victim).toBeDefined();

    let published = 0;
    for (let minor = 0; minor < VERSIONS; minor += 1) {
      for (let tool = 0; tool < TOOLS; tool += 1) {
        const spec = { ...lookup, name: `bank.tool${tool}`, version: `1.${minor}.0`, description: `tool ${tool} at 1.${minor}.0` };
        expect((await http('POST', `${registryUrl}/v1/tools`, admin, spec)).status).toBe(201);
        published += 1;
        if (published === TOOLS * 2) {
          await victim?.child.stop('SIGKILL');
          expect(victim?.child.process.signalCode).toBe('SIGKILL');
        }
      }
    }

    const live = await waitFor(async () => {
      const r = await http('GET', `${survivor.url}/v1/catalog`, admin);
      const tools = ((r.body.tools ?? []) as CatalogEntry[]).filter((t) => t.name.startsWith('bank.tool'));
      return tools.length === TOOLS && tools.every((t) => t.versions.length === VERSIONS) ? r.body : undefined;
    }, 'the surviving discovery to take the log over and catch up', 90000);
    expect((await partitionHolders(env.ESTATE_DISCOVERY_GROUP, topic)).get(0)).toBe(survivor.pid);
    for (const tool of (live.tools as CatalogEntry[]).filter((t) => t.name.startsWith('bank.tool'))) {
      expect(tool.versions.map((v) => v.version)).toEqual(Array.from({ length: VERSIONS }, (_, i) => `1.${i}.0`));
    }
    // Nothing applied twice either: a rebuild from the registry's store gives the same catalog.
    expect(await http('POST', `${survivor.url}/v1/rebuild`, admin)).toMatchObject({ status: 200 });
    expect((await http('GET', `${survivor.url}/v1/catalog`, admin)).body).toEqual(live);
  }, 150000);

  it('two audits record every registry event and every call exactly once, and the chain verifies', async () => {
    const store = await http('GET', `${registryUrl}/v1/events?limit=1000`, admin);
    const registryIds = (store.body.events as Array<{ id: string }>).map((e) => e.id);
    expect(registryIds.length).toBe(store.body.total);
    const [first, second] = audits;
    const trail = await waitFor(async () => {
      const entries = await auditTrail(first.url);
      const callEntries = entries.filter((e) => e.type === 'ToolCallCompleted');
      return entries.length >= registryIds.length + calls && callEntries.length >= calls ? entries : undefined;
    }, `the trail to hold ${registryIds.length} registry events and ${calls} calls`, 60000);

    const counts = new Map<string, number>();
    for (const entry of trail) counts.set(entry.eventId, (counts.get(entry.eventId) ?? 0) + 1);
    expect([...counts].filter(([, n]) => n > 1)).toEqual([]);
    expect(registryIds.filter((id) => !counts.has(id))).toEqual([]);
    expect(trail.filter((e) => e.type === 'ToolCallCompleted')).toHaveLength(calls);
    // Both copies read the one trail, and it verifies from either.
    expect((await auditTrail(second.url)).length).toBe(trail.length);
    for (const copy of audits) {
      const verified = await http('GET', `${copy.url}/v1/audit/verify`, admin);
      expect(verified.status).toBe(200);
      expect(verified.body).toMatchObject({ chainOk: true });
    }
  }, 90000);

  it('SIGKILL of the audit recording calls mid-stream: the other copy takes the calls over, each call is still recorded once', async () => {
    const topic = topicName(env.ESTATE_TOPIC_PREFIX, 'calls');
    const group = `${env.ESTATE_AUDIT_GROUP}.calls`;
    const holderPid = (await waitFor(async () => {
      const found = await partitionHolders(group, topic);
      return found.size > 0 ? found : undefined;
    }, 'an audit copy to hold the calls topic', 30000)).get(0);
    const victim = audits.find((copy) => copy.pid === holderPid);
    const survivor = audits.find((copy) => copy.pid !== holderPid) as ServiceCopy;
    expect(victim).toBeDefined();

    const caller = await session(edges[0], ALICE);
    for (let i = 0; i < 16; i += 1) {
      await callLookup(caller);
      if (i === 5) {
        await victim?.child.stop('SIGKILL');
        expect(victim?.child.process.signalCode).toBe('SIGKILL');
      }
    }
    const trail = await waitFor(async () => {
      const entries = await auditTrail(survivor.url);
      return entries.filter((e) => e.type === 'ToolCallCompleted').length >= calls ? entries : undefined;
    }, `the surviving audit to record all ${calls} calls`, 90000);
    expect((await partitionHolders(group, topic)).get(0)).toBe(survivor.pid);
    const ids = trail.map((e) => e.eventId);
    expect(ids.length - new Set(ids).size).toBe(0);
    expect(trail.filter((e) => e.type === 'ToolCallCompleted')).toHaveLength(calls);
    const verified = await http('GET', `${survivor.url}/v1/audit/verify`, admin);
    expect(verified.body).toMatchObject({ chainOk: true });
  }, 150000);
});
