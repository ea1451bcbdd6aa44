import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { PromptListChangedNotificationSchema, ResourceListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { createLogger } from '@estate/platform';
import { composeEstate } from '../apps/estate/src/estate.composition';
import { startNotesServer } from '../examples/notes/notes.http';
import { notesSpecs } from '../examples/notes/notes.specs';
import { ADMIN, http, token, waitFor } from './support/estate.harness';
import { testEstateEnv } from './support/estate.stack';
import { ACCEPT_BOTH, mirroredHeaders, openStream, raw } from './support/edge-wire';
import { createTestDatabase } from './support/infra';

/*
 * Resources, prompts and completions for MCP 2026-07-28 clients (no session): the same upstreams,
 * authorization and answers as edge-proxy.e2e-spec.ts gives sessions, per request, plus resource
 * updates and list changes on subscriptions/listen, each only to principals entitled to them.
 */

const V = '2026-07-28';
const ALICE = { sub: 'alice', scope: 'notes:read memo:read plain:read', clearance: 'internal' };
const BOB = { sub: 'bob', scope: 'crm:read', clearance: 'internal' };
type Claims = typeof ALICE;
type Message = { jsonrpc: string; id?: unknown; method?: string; params?: Record<string, unknown>; result?: Record<string, unknown>; error?: { code: number; message: string; data?: unknown } };

const META = { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'primitives-2026', version: '1' } };

/** The headers a 2026-07-28 POST mirrors from its body (Mcp-Name: the prompt's name or the resource's URI). */
async function headersFor(claims: Claims, method: string, params: Record<string, unknown>): Promise<Record<string, string>> {
  return { authorization: `Bearer ${await token(claims)}`, 'content-type': 'application/json', accept: ACCEPT_BOTH, ...mirroredHeaders(method, params) };
}

describe('resources, prompts and completions on MCP 2026-07-28 (no sessions)', () => {
  const logger = createLogger('e2e', 'error');
  const stops: Array<() => Promise<void>> = [];
  const memoServers: McpServer[] = [];
  let urls: { registry: string; mcp: string };
  let admin: string;

  beforeAll(async () => {
    const db = await createTestDatabase();
    stops.push(db.drop);
    const estate = await composeEstate({ env: testEstateEnv(), databaseUrl: db.url, logger, services: ['registry', 'discovery', 'audit', 'edge'] });
    stops.push(estate.stop);
    const { registry, edge } = estate;
    if (!registry || !edge) throw new Error('the estate started without one of its services');
    urls = { registry: registry.url, mcp: edge.mcpUrl };
    admin = await token(ADMIN);
    const servers = [
      { name: 'notes', namespace: 'notes', scope: 'notes:read' },
      { name: 'memo', namespace: 'memo', scope: 'memo:read' },
      { name: 'plain', namespace: '', scope: 'plain:read' },
    ];
    for (const s of servers) {
      const upstream = await startNotesServer({ name: s.name, ...(s.name === 'memo' ? { onServer: (server: McpServer) => void memoServers.push(server) } : {}) });
      stops.unshift(upstream.close);
      expect((await http('POST', `${urls.registry}/v1/servers`, admin, { name: s.name, namespace: s.namespace, url: upstream.url, owner: 'notes-team' })).status).toBe(201);
      const specs = notesSpecs(s.name, s.namespace, s.scope).filter((spec) => s.namespace !== '' || spec.upstream.tool === 'count');
      for (const spec of specs) expect((await http('POST', `${urls.registry}/v1/tools`, admin, spec)).status).toBe(201);
    }
    await waitFor(async () => (((await send(ALICE, 'tools/list')).message.result?.['tools'] as unknown[] | undefined)?.length === 11 ? true : undefined), 'alice to see the eleven tools');
  }, 60000);

  afterAll(async () => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  });

  async function send(claims: Claims, method: string, params: Record<string, unknown> = {}, id: unknown = 1) {
    const body = JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: META } });
    const answer = await raw(urls.mcp, { headers: await headersFor(claims, method, params), body });
    return { status: answer.status, headers: answer.headers, message: (answer.text ? JSON.parse(answer.text) : {}) as Message };
  }

  /** The error answer, with the status it came with. */
  async function refusal(claims: Claims, method: string, params: Record<string, unknown>) {
    const answer = await send(claims, method, params);
    expect(answer.message.result).toBeUndefined();
    return { status: answer.status, error: answer.message.error };
  }

  /** What an SDK session of the same principal is told, for the seed rule "the same answers as for sessions". */
  async function sessionError(claims: Claims, run: (client: Client) => Promise<unknown>): Promise<{ code: number; message: string }> {
    const client = new Client({ name: 'primitives-session', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(urls.mcp), { requestInit: { headers: { authorization: `Bearer ${await token(claims)}` } } }));
    try {
      await run(client);
    } catch (error) {
      return { code: (error as { code: number }).code, message: (error as Error).message };
    } finally {
      await client.close();
    }
    throw new Error('expected the session request to fail');
  }

  it('advertises resources (with subscribe and listChanged), prompts and completions in server/discover', async () => {
    const answer = await send(ALICE, 'server/discover');
    expect(answer.status).toBe(200);
    expect(answer.message.result?.['capabilities']).toEqual({
      tools: { listChanged: true }, resources: { subscribe: true, listChanged: true }, prompts: { listChanged: true }, completions: {},
    });
  });

  it('lists and gets prompts per principal, private to it, and answers a hidden prompt like a missing one', async () => {
    const listed = await send(ALICE, 'prompts/list');
    expect(listed.status).toBe(200);
    expect(listed.message.result).toMatchObject({ resultType: 'complete', cacheScope: 'private', ttlMs: expect.any(Number) });
    expect((listed.message.result?.['prompts'] as Array<{ name: string }>).map((p) => p.name).sort()).toEqual(['memo.summarize', 'notes.summarize', 'summarize']);
    const got = await send(ALICE, 'prompts/get', { name: 'notes.summarize', arguments: { topic: 'budget' } });
    expect(got.message.result).toMatchObject({ resultType: 'complete', messages: [{ role: 'user', content: { type: 'text', text: 'Summarize the notes about budget.' } }] });
    expect(got.message.result?.['ttlMs']).toBeUndefined();

    const bobList = await send(BOB, 'prompts/list');
    expect(bobList.message.result).toMatchObject({ prompts: [], cacheScope: 'private' });
    const hidden = await refusal(BOB, 'prompts/get', { name: 'notes.summarize', arguments: { topic: 'budget' } });
    const missing = await refusal(BOB, 'prompts/get', { name: 'notes.nothing', arguments: { topic: 'budget' } });
    expect(hidden).toEqual({ status: 200, error: { code: -32602, message: 'Unknown prompt: notes.summarize' } });
    expect({ ...missing, error: { ...missing.error, message: missing.error?.message.replace('notes.nothing', 'notes.summarize') } }).toEqual(hidden);
    expect(await refusal(ALICE, 'prompts/get', { name: 'notes.nothing', arguments: { topic: 'budget' } })).toEqual(missing);
    const session = await sessionError(BOB, (client) => client.getPrompt({ name: 'notes.summarize', arguments: { topic: 'budget' } }));
    expect(session.code).toBe(hidden.error?.code);
    expect(session.message).toContain(hidden.error?.message);
  });

  it('lists resources and templates, reads with cache hints, and answers a hidden URI like a missing one', async () => {
    const listed = await send(ALICE, 'resources/list');
    expect(listed.message.result).toMatchObject({ resultType: 'complete', cacheScope: 'private', ttlMs: expect.any(Number) });
    expect((listed.message.result?.['resources'] as Array<{ uri: string }>).map((r) => r.uri).sort()).toEqual(['notes://memo/welcome', 'notes://notes/welcome', 'notes://plain/welcome']);
    const templates = await send(ALICE, 'resources/templates/list');
    expect(templates.message.result).toMatchObject({ cacheScope: 'private', ttlMs: expect.any(Number) });
    expect((templates.message.result?.['resourceTemplates'] as Array<{ uriTemplate: string }>).map((t) => t.uriTemplate).sort()).toEqual(['notes://memo/{id}', 'notes://notes/{id}', 'notes://plain/{id}']);
    // No list first: a 2026 request attributes the URI by itself (a template here).
    const read = await send(ALICE, 'resources/read', { uri: 'notes://memo/meeting' });
    expect(read.message.result).toMatchObject({ resultType: 'complete', cacheScope: 'private', ttlMs: 0, contents: [{ uri: 'notes://memo/meeting', text: 'Note meeting' }] });

    expect((await send(BOB, 'resources/list')).message.result).toMatchObject({ resources: [] });
    expect((await send(BOB, 'resources/templates/list')).message.result).toMatchObject({ resourceTemplates: [] });
    const hidden = await refusal(BOB, 'resources/read', { uri: 'notes://notes/welcome' });
    const missing = await refusal(BOB, 'resources/read', { uri: 'notes://notes/nope' });
    expect(hidden).toEqual({ status: 200, error: { code: -32602, message: 'Resource not found: notes://notes/welcome', data: { uri: 'notes://notes/welcome' } } });
    const renamed = JSON.parse(JSON.stringify(missing).replaceAll('notes://notes/nope', 'notes://notes/welcome')) as typeof missing;
    expect(renamed).toEqual(hidden);
    // A URI the upstream does not know reads exactly like one the caller may not reach.
    expect(await refusal(ALICE, 'resources/read', { uri: 'notes://notes/nope' })).toEqual(missing);
    const session = await sessionError(BOB, (client) => client.readResource({ uri: 'notes://notes/welcome' }));
    expect(session.code).toBe(hidden.error?.code);
    expect(session.message).toContain(hidden.error?.message);
  });

  it('completes prompt arguments and template variables, and refuses what the principal cannot reach as unknown', async () => {
    const topics = await send(ALICE, 'completion/complete', { ref: { type: 'ref/prompt', name: 'notes.summarize' }, argument: { name: 'topic', value: 'b' } });
    expect(topics.message.result).toMatchObject({ resultType: 'complete' });
    expect((topics.message.result?.['completion'] as { values: string[] }).values.sort()).toEqual(['backlog', 'budget']);
    const ids = await send(ALICE, 'completion/complete', { ref: { type: 'ref/resource', uri: 'notes://notes/{id}' }, argument: { name: 'id', value: 'me' } });
    expect((ids.message.result?.['completion'] as { values: string[] }).values.sort()).toEqual(['meeting', 'memo']);
    const prompt = await refusal(BOB, 'completion/complete', { ref: { type: 'ref/prompt', name: 'notes.summarize' }, argument: { name: 'topic', value: 'b' } });
    expect(prompt.error).toEqual({ code: -32602, message: 'Unknown prompt: notes.summarize' });
    const template = await refusal(BOB, 'completion/complete', { ref: { type: 'ref/resource', uri: 'notes://notes/{id}' }, argument: { name: 'id', value: 'me' } });
    const nowhere = await refusal(BOB, 'completion/complete', { ref: { type: 'ref/resource', uri: 'notes://nowhere/{id}' }, argument: { name: 'id', value: 'me' } });
    expect(template.error).toMatchObject({ code: -32602, message: 'Resource not found: notes://notes/{id}' });
    expect(JSON.parse(JSON.stringify(nowhere).replaceAll('nowhere', 'notes'))).toEqual(template);
  });

  it('refuses malformed params with -32602 naming the path, and a cursor it never issued', async () => {
    const noUri = await refusal(ALICE, 'resources/read', {});
    expect(noUri.error).toMatchObject({ code: -32602, message: expect.stringContaining('params.uri') });
    const badArgs = await refusal(ALICE, 'prompts/get', { name: 'notes.summarize', arguments: { topic: 7 } });
    expect(badArgs.error).toMatchObject({ code: -32602, message: expect.stringContaining('params.arguments.topic') });
    const badRef = await refusal(ALICE, 'completion/complete', { ref: { type: 'ref/tool', name: 'x' }, argument: { name: 'a', value: '' } });
    expect(badRef.error).toMatchObject({ code: -32602, message: expect.stringContaining('params.ref') });
    for (const method of ['resources/list', 'resources/templates/list', 'prompts/list']) {
      expect({ method, ...(await refusal(ALICE, method, { cursor: 'abc' })).error }).toEqual({ method, code: -32602, message: 'Invalid params: the cursor is not one this server issued' });
    }
    // Removed by the revision: subscriptions/listen replaces these.
    for (const method of ['resources/subscribe', 'logging/setLevel']) {
      expect({ method, ...(await refusal(ALICE, method, { uri: 'notes://notes/welcome', level: 'debug' })) }).toMatchObject({ method, status: 404, error: { code: -32601 } });
    }
  });

  describe('subscriptions/listen', () => {
    it('acknowledges every URI asked for alike, and sends resources/updated only for watched URIs the principal may reach', async () => {
      const alice = await listen(ALICE, 'a-watch', { resourceSubscriptions: ['notes://notes/meeting', 'notes://notes/nope'] });
      const bob = await listen(BOB, 'b-watch', { resourceSubscriptions: ['notes://notes/meeting', 'notes://notes/nope'] });
      try {
        const acks = await Promise.all([alice, bob].map(async (s) => JSON.parse((await s.waitFor((e) => e.data.includes('acknowledged'))).data) as Message));
        // Bob may not reach notes://notes/meeting: his acknowledgement still reads like Alice's.
        for (const ack of acks) expect(ack.params?.['notifications']).toEqual({ resourceSubscriptions: ['notes://notes/meeting', 'notes://notes/nope'] });
        expect((await send(ALICE, 'tools/call', { name: 'notes.touch', arguments: { id: 'memo' } })).message.result).toMatchObject({ content: [{ text: 'touched memo' }] });
        expect((await send(ALICE, 'tools/call', { name: 'notes.touch', arguments: { id: 'meeting' } })).message.result).toMatchObject({ content: [{ text: 'touched meeting' }] });
        const updated = JSON.parse((await alice.waitFor((e) => e.data.includes('resources/updated'))).data) as Message;
        expect(updated).toEqual({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'notes://notes/meeting', _meta: { 'io.modelcontextprotocol/subscriptionId': 'a-watch' } } });
        await new Promise((resolve) => setTimeout(resolve, 500));
        expect(alice.events.filter((e) => e.data.includes('resources/updated'))).toHaveLength(1);
        expect(bob.events.filter((e) => e.data.includes('resources/updated'))).toEqual([]);
      } finally {
        alice.close();
        bob.close();
      }
    });

    it('sends resources/ and prompts/list_changed when a server a principal may reach says so, and to no one else', async () => {
      const alice = await listen(ALICE, 'a-lists', { resourcesListChanged: true, promptsListChanged: true });
      const bob = await listen(BOB, 'b-lists', { resourcesListChanged: true, promptsListChanged: true });
      const toolsOnly = await listen(ALICE, 'a-tools', { toolsListChanged: true });
      try {
        const ack = JSON.parse((await alice.waitFor((e) => e.data.includes('acknowledged'))).data) as Message;
        expect(ack.params?.['notifications']).toEqual({ resourcesListChanged: true, promptsListChanged: true });
        await bob.waitFor((e) => e.data.includes('acknowledged'));
        await toolsOnly.waitFor((e) => e.data.includes('acknowledged'));
        expect(memoServers.length).toBeGreaterThan(0);
        for (const server of memoServers) {
          // A connection the edge has since dropped cannot send: only the live one matters.
          await server.server.sendResourceListChanged().catch(() => undefined);
          await server.server.sendPromptListChanged().catch(() => undefined);
        }
        const resources = JSON.parse((await alice.waitFor((e) => e.data.includes('resources/list_changed'))).data) as Message;
        expect(resources).toEqual({ jsonrpc: '2.0', method: 'notifications/resources/list_changed', params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 'a-lists' } } });
        await alice.waitFor((e) => e.data.includes('prompts/list_changed'));
        await new Promise((resolve) => setTimeout(resolve, 500));
        expect(bob.events.filter((e) => e.data.includes('list_changed'))).toEqual([]);
        expect(toolsOnly.events.filter((e) => e.data.includes('list_changed'))).toEqual([]);
      } finally {
        [alice, bob, toolsOnly].forEach((s) => s.close());
      }
    });

    it('relays the same list changes to sessions that may reach the server, which initialize told they would come', async () => {
      const session = async (claims: Claims) => {
        const heard = new Set<string>();
        const client = new Client({ name: 'lists-session', version: '1' });
        client.setNotificationHandler(ResourceListChangedNotificationSchema, async (n) => void heard.add(n.method));
        client.setNotificationHandler(PromptListChangedNotificationSchema, async (n) => void heard.add(n.method));
        await client.connect(new StreamableHTTPClientTransport(new URL(urls.mcp), { requestInit: { headers: { authorization: `Bearer ${await token(claims)}` } } }));
        return { client, heard };
      };
      const alice = await session(ALICE);
      const bob = await session(BOB);
      try {
        expect(alice.client.getServerCapabilities()).toMatchObject({ resources: { subscribe: true, listChanged: true }, prompts: { listChanged: true } });
        // Sent again until heard: a session hears pushed notifications once its GET stream is open.
        await waitFor(async () => {
          for (const server of memoServers) {
            await server.server.sendResourceListChanged().catch(() => undefined);
            await server.server.sendPromptListChanged().catch(() => undefined);
          }
          await new Promise((resolve) => setTimeout(resolve, 300));
          return alice.heard.size === 2 ? true : undefined;
        }, 'alice to hear that memo\'s resources and prompts changed', 15000);
        expect([...alice.heard].sort()).toEqual(['notifications/prompts/list_changed', 'notifications/resources/list_changed']);
        await new Promise((resolve) => setTimeout(resolve, 500));
        expect([...bob.heard]).toEqual([]);
      } finally {
        await alice.client.close();
        await bob.client.close();
      }
    });

    it('tells a principal its resource and prompt lists changed when a publish lets it reach another server', async () => {
      const alice = await listen(ALICE, 'a-reach', { resourcesListChanged: true, promptsListChanged: true });
      const bob = await listen(BOB, 'b-reach', { resourcesListChanged: true, promptsListChanged: true });
      try {
        await alice.waitFor((e) => e.data.includes('acknowledged'));
        await bob.waitFor((e) => e.data.includes('acknowledged'));
        const [count] = notesSpecs('memo', 'memo', 'crm:read');
        expect((await http('POST', `${urls.registry}/v1/tools`, admin, { ...count, version: '2.0.0' })).status).toBe(201);
        await bob.waitFor((e) => e.data.includes('resources/list_changed'), 15000);
        await bob.waitFor((e) => e.data.includes('prompts/list_changed'));
        const prompts = await send(BOB, 'prompts/list');
        expect((prompts.message.result?.['prompts'] as Array<{ name: string }>).map((p) => p.name)).toEqual(['memo.summarize']);
        // Alice reached memo before and still does: her lists did not change.
        await new Promise((resolve) => setTimeout(resolve, 500));
        expect(alice.events.filter((e) => e.data.includes('list_changed'))).toEqual([]);
      } finally {
        alice.close();
        bob.close();
      }
    });

    it('tells a session its resource and prompt lists changed when a publish takes its principal out of reach of a server', async () => {
      // Sessions, not listen streams: each opens its GET stream (where list changes go) by itself.
      const session = async (claims: Claims) => {
        const heard: string[] = [];
        let streaming = false;
        const fetchSpy = async (url: string | URL, init?: RequestInit) => {
          const answer = await fetch(url, init);
          if (init?.method === 'GET' && answer.ok) streaming = true;
          return answer;
        };
        const client = new Client({ name: 'reach-session', version: '1' });
        client.setNotificationHandler(ResourceListChangedNotificationSchema, async (n) => void heard.push(n.method));
        client.setNotificationHandler(PromptListChangedNotificationSchema, async (n) => void heard.push(n.method));
        await client.connect(new StreamableHTTPClientTransport(new URL(urls.mcp), { fetch: fetchSpy, requestInit: { headers: { authorization: `Bearer ${await token(claims)}` } } }));
        await waitFor(async () => (streaming ? true : undefined), 'the session\'s GET stream to open');
        return { client, heard };
      };
      const memoOnly = { sub: 'carol', scope: 'memo:read', clearance: 'internal' };
      const carol = await session(memoOnly);
      const alice = await session(ALICE);
      const bob = await session(BOB);
      try {
        expect((await carol.client.listPrompts()).prompts.map((p) => p.name)).toEqual(['memo.summarize']);
        // Every memo tool carol's memo:read saw is retired (count 2.0.0, published above for
        // crm:read, stays): carol can reach memo no more, and neither can alice.
        for (const spec of notesSpecs('memo', 'memo', 'memo:read')) {
          expect((await http('POST', `${urls.registry}/v1/tools/${spec.name}/versions/${spec.version}/retire`, admin, { reason: 'memo closes for memo:read' })).status).toBe(200);
        }
        await waitFor(async () => (carol.heard.length === 2 ? true : undefined), 'carol to hear that her resource and prompt lists changed', 15000);
        expect([...carol.heard].sort()).toEqual(['notifications/prompts/list_changed', 'notifications/resources/list_changed']);
        expect((await carol.client.listPrompts()).prompts).toEqual([]);
        // Alice reached memo through memo:read as well: her lists changed too.
        await waitFor(async () => (alice.heard.length === 2 ? true : undefined), 'alice to hear it too', 15000);
        // Bob reaches memo through the count tool his crm:read sees, before and after: nothing changed for him.
        await new Promise((resolve) => setTimeout(resolve, 500));
        expect(bob.heard).toEqual([]);
        expect((await bob.client.listPrompts()).prompts.map((p) => p.name)).toEqual(['memo.summarize']);
      } finally {
        await carol.client.close();
        await alice.client.close();
        await bob.client.close();
      }
    });

    it('refuses more watched URIs than it takes on one stream with -32602', async () => {
      const uris = Array.from({ length: 101 }, (_, i) => `notes://notes/n${i}`);
      const answer = await send(ALICE, 'subscriptions/listen', { notifications: { resourceSubscriptions: uris } });
      expect(answer.status).toBe(400);
      expect(answer.message.error).toMatchObject({ code: -32602, message: expect.stringContaining('params.notifications.resourceSubscriptions') });
    });
  });

  /** A subscriptions/listen POST whose SSE answer is read as it arrives. */
  async function listen(claims: Claims, id: string, notifications: Record<string, unknown>) {
    const params = { notifications };
    const body = JSON.stringify({ jsonrpc: '2.0', id, method: 'subscriptions/listen', params: { ...params, _meta: META } });
    const headers = await headersFor(claims, 'subscriptions/listen', params);
    return openStream(urls.mcp, headers, body);
  }
});
