import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema, ElicitRequestSchema, LoggingMessageNotificationSchema, ResourceUpdatedNotificationSchema,
  type ClientCapabilities, type LoggingMessageNotification,
} from '@modelcontextprotocol/sdk/types.js';
import type { ToolSpec } from '@estate/contracts';
import { createLogger } from '@estate/platform';
import { z } from 'zod';
import { composeEstate } from '../apps/estate/src/estate.composition';
import { startNotesServer, type NotesServerHandle } from '../examples/notes/notes.http';
import { notesSpecs } from '../examples/notes/notes.specs';
import { ADMIN, http, token, waitFor } from './support/estate.harness';
import { testEstateEnv } from './support/estate.stack';
import { createTestDatabase } from './support/infra';

const ALICE = { sub: 'alice', scope: 'notes:read memo:read plain:read', clearance: 'internal' };
const BOB = { sub: 'bob', scope: 'crm:read', clearance: 'internal' };
/** Two tenants that may both call the qa server's tool. */
const ACME = { sub: 'alice', tenant: 'acme', scope: 'qa:read', clearance: 'internal' };
const GLOBEX = { sub: 'bob', tenant: 'globex', scope: 'qa:read', clearance: 'internal' };

/**
 * An upstream whose one tool logs a line tied to its request and one that is not, after waiting
 * `waitMs`, so that a test can choose which calls are in flight when each line arrives.
 */
function createQaServer(): McpServer {
  const server = new McpServer({ name: 'qa', version: '1.0.0' }, { capabilities: { logging: {} } });
  server.registerTool('logrel', { inputSchema: { who: z.string(), waitMs: z.number().int().min(0).optional() } }, async ({ who, waitMs }, extra) => {
    if (waitMs) await new Promise((resolve) => setTimeout(resolve, waitMs));
    await extra.sendNotification({ method: 'notifications/message', params: { level: 'info', data: `related log for ${who}` } });
    await server.sendLoggingMessage({ level: 'info', data: `unrelated log for ${who}` });
    return { content: [{ type: 'text', text: `logged for ${who}` }] };
  });
  return server;
}

const LOGREL: ToolSpec = {
  name: 'qa.logrel', version: '1.0.0', description: 'Logs one line tied to its request and one that is not.', sideEffect: 'read',
  inputSchema: { type: 'object', properties: { who: { type: 'string' }, waitMs: { type: 'integer', minimum: 0 } }, required: ['who'], additionalProperties: false },
  requiredScopes: ['qa:read'], dataClassification: 'internal', tenants: [], owner: 'qa-team', upstream: { server: 'qa', tool: 'logrel' },
};

interface Downstream {
  client: Client;
  logs: LoggingMessageNotification['params'][];
  sampled: string[];
  elicited: string[];
  updated: string[];
}

/** An official SDK client over real HTTP, optionally declaring sampling and elicitation with canned answers. */
async function connect(mcpUrl: string, claims: typeof ALICE, capabilities: ClientCapabilities = {}): Promise<Downstream> {
  const client = new Client({ name: 'proxy-e2e', version: '1.0.0' }, { capabilities });
  const downstream: Downstream = { client, logs: [], sampled: [], elicited: [], updated: [] };
  client.setNotificationHandler(LoggingMessageNotificationSchema, async (n) => void downstream.logs.push(n.params));
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, async (n) => void downstream.updated.push(n.params.uri));
  if (capabilities.sampling) {
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      const first = request.params.messages[0]?.content;
      downstream.sampled.push(first && 'text' in first ? String(first.text) : '');
      return { role: 'assistant', content: { type: 'text', text: 'forty-two' }, model: 'test-model' };
    });
  }
  if (capabilities.elicitation) {
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      downstream.elicited.push(request.params.message);
      return { action: 'accept', content: { title: 'Q3 plan' } };
    });
  }
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers: { authorization: `Bearer ${await token(claims)}` } } });
  await client.connect(transport);
  return downstream;
}

async function rpcError(run: () => Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await run();
  } catch (error) {
    const { code, message } = error as { code: number; message: string };
    return { code, message };
  }
  throw new Error('expected the request to fail');
}

const textOf = (result: unknown) => (((result as { content?: Array<{ text?: string }> }).content) ?? []).map((c) => c.text).join('');

describe('the edge proxies resources, prompts, completions, logging, progress, sampling and elicitation', () => {
  const logger = createLogger('e2e', 'error');
  const stops: Array<() => Promise<void>> = [];
  const sessions: Downstream[] = [];
  let urls: { registry: string; mcp: string; audit: string };
  const upstreams = new Map<string, NotesServerHandle>();

  beforeAll(async () => {
    const db = await createTestDatabase();
    stops.push(db.drop);
    const estate = await composeEstate({ env: testEstateEnv(), databaseUrl: db.url, logger, services: ['registry', 'discovery', 'audit', 'edge'] });
    stops.push(estate.stop);
    const { registry, audit, edge } = estate;
    if (!registry || !audit || !edge) throw new Error('the estate started without one of its services');
    urls = { registry: registry.url, mcp: edge.mcpUrl, audit: audit.url };

    const admin = await token(ADMIN);
    const servers = [
      { name: 'notes', allow: true, namespace: 'notes', scope: 'notes:read' },
      { name: 'memo', allow: false, namespace: 'memo', scope: 'memo:read' },
      { name: 'plain', allow: false, namespace: '', scope: 'plain:read' },
    ];
    for (const s of servers) {
      const upstream = await startNotesServer({ name: s.name });
      upstreams.set(s.name, upstream);
      stops.unshift(() => (upstreams.get(s.name) ?? upstream).close());
      const body = { name: s.name, namespace: s.namespace, url: upstream.url, owner: 'notes-team', allowSampling: s.allow, allowElicitation: s.allow };
      expect((await http('POST', `${urls.registry}/v1/servers`, admin, body)).status).toBe(201);
      // plain serves only `count` under a bare name, so bare names cannot collide with the other servers' tools
      const specs = notesSpecs(s.name, s.namespace, s.scope).filter((spec) => s.namespace !== '' || spec.upstream.tool === 'count');
      for (const spec of specs) expect((await http('POST', `${urls.registry}/v1/tools`, admin, spec)).status).toBe(201);
    }
    const qa = await startNotesServer({ name: 'qa', create: createQaServer });
    stops.unshift(() => qa.close());
    expect((await http('POST', `${urls.registry}/v1/servers`, admin, { name: 'qa', namespace: 'qa', url: qa.url, owner: 'qa-team' })).status).toBe(201);
    expect((await http('POST', `${urls.registry}/v1/tools`, admin, LOGREL)).status).toBe(201);
    const probe = await connect(urls.mcp, ALICE);
    await waitFor(async () => ((await probe.client.listTools()).tools.length === 11 ? true : undefined), 'alice to see the eleven tools');
    await probe.client.close();
  }, 60000);

  afterEach(async () => {
    await Promise.allSettled(sessions.splice(0).map((s) => s.client.close()));
  });

  afterAll(async () => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  });

  async function open(claims: typeof ALICE, capabilities?: ClientCapabilities): Promise<Downstream> {
    const session = await connect(urls.mcp, claims, capabilities);
    sessions.push(session);
    return session;
  }

  it('lists and gets prompts namespaced like tools, only from servers whose tools the principal may see', async () => {
    const alice = await open(ALICE);
    const bob = await open(BOB);
    expect(alice.client.getServerCapabilities()).toMatchObject({ tools: { listChanged: true }, resources: { subscribe: true }, prompts: {}, completions: {}, logging: {} });
    const names = (await alice.client.listPrompts()).prompts.map((p) => p.name).sort();
    expect(names).toEqual(['memo.summarize', 'notes.summarize', 'summarize']);
    const prompt = await alice.client.getPrompt({ name: 'notes.summarize', arguments: { topic: 'budget' } });
    expect(prompt.messages[0].content).toEqual({ type: 'text', text: 'Summarize the notes about budget.' });
    expect((await alice.client.getPrompt({ name: 'summarize', arguments: { topic: 'hiring' } })).messages).toHaveLength(1);

    expect((await bob.client.listPrompts()).prompts).toEqual([]);
    const hidden = await rpcError(() => bob.client.getPrompt({ name: 'notes.summarize', arguments: { topic: 'budget' } }));
    const missing = await rpcError(() => bob.client.getPrompt({ name: 'notes.nothing', arguments: { topic: 'budget' } }));
    expect(hidden).toEqual({ code: -32602, message: expect.stringContaining('Unknown prompt: notes.summarize') });
    expect({ ...missing, message: missing.message.replace('notes.nothing', 'notes.summarize') }).toEqual(hidden);
    const aliceMissing = await rpcError(() => alice.client.getPrompt({ name: 'notes.nothing', arguments: { topic: 'budget' } }));
    expect(aliceMissing).toEqual(missing);
  });

  it('lists, reads and attributes resources and templates, with one answer for unknown and not yours', async () => {
    const alice = await open(ALICE);
    const bob = await open(BOB);
    const uris = (await alice.client.listResources()).resources.map((r) => r.uri).sort();
    expect(uris).toEqual(['notes://memo/welcome', 'notes://notes/welcome', 'notes://plain/welcome']);
    const templates = (await alice.client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate).sort();
    expect(templates).toEqual(['notes://memo/{id}', 'notes://notes/{id}', 'notes://plain/{id}']);
    const welcome = await alice.client.readResource({ uri: 'notes://notes/welcome' });
    expect(welcome.contents[0]).toMatchObject({ uri: 'notes://notes/welcome', text: 'Welcome to the notes server.' });
    expect((await alice.client.readResource({ uri: 'notes://memo/meeting' })).contents[0]).toMatchObject({ text: 'Note meeting' });

    expect((await bob.client.listResources()).resources).toEqual([]);
    const hidden = await rpcError(() => bob.client.readResource({ uri: 'notes://notes/welcome' }));
    const missing = await rpcError(() => bob.client.readResource({ uri: 'notes://notes/nope' }));
    expect(hidden).toEqual({ code: -32602, message: expect.stringContaining('Resource not found: notes://notes/welcome') });
    expect({ ...missing, message: missing.message.replace('nope', 'welcome') }).toEqual(hidden);
    // A URI the upstream itself does not know reads exactly like one the caller may not reach.
    expect(await rpcError(() => alice.client.readResource({ uri: 'notes://notes/nope' }))).toEqual(missing);
  });

  it('relays resource updates to exactly the sessions subscribed to that URI', async () => {
    const watcher = await open(ALICE);
    const other = await open(ALICE);
    const bob = await open(BOB);
    await watcher.client.subscribeResource({ uri: 'notes://notes/meeting' });
    await other.client.subscribeResource({ uri: 'notes://notes/memo' });
    const refused = await rpcError(() => bob.client.subscribeResource({ uri: 'notes://notes/meeting' }));
    expect(refused).toEqual({ code: -32602, message: expect.stringContaining('Resource not found: notes://notes/meeting') });

    expect(textOf(await other.client.callTool({ name: 'notes.touch', arguments: { id: 'meeting' } }))).toBe('touched meeting');
    await waitFor(async () => (watcher.updated.length > 0 ? true : undefined), 'the update at the subscriber');
    expect(watcher.updated).toEqual(['notes://notes/meeting']);
    await watcher.client.unsubscribeResource({ uri: 'notes://notes/meeting' });
    await other.client.callTool({ name: 'notes.touch', arguments: { id: 'memo' } });
    await other.client.callTool({ name: 'notes.touch', arguments: { id: 'meeting' } });
    await waitFor(async () => (other.updated.length > 0 ? true : undefined), 'the memo update at the other session');
    expect(other.updated).toEqual(['notes://notes/memo']);
    expect(watcher.updated).toEqual(['notes://notes/meeting']);
    expect(bob.updated).toEqual([]);
  });

  it('completes prompt arguments and template variables through the owning upstream', async () => {
    const alice = await open(ALICE);
    const bob = await open(BOB);
    const topics = await alice.client.complete({ ref: { type: 'ref/prompt', name: 'notes.summarize' }, argument: { name: 'topic', value: 'b' } });
    expect(topics.completion.values.sort()).toEqual(['backlog', 'budget']);
    await alice.client.listResourceTemplates();
    const ids = await alice.client.complete({ ref: { type: 'ref/resource', uri: 'notes://notes/{id}' }, argument: { name: 'id', value: 'me' } });
    expect(ids.completion.values.sort()).toEqual(['meeting', 'memo']);
    const refused = await rpcError(() => bob.client.complete({ ref: { type: 'ref/prompt', name: 'notes.summarize' }, argument: { name: 'topic', value: 'b' } }));
    expect(refused).toEqual({ code: -32602, message: expect.stringContaining('Unknown prompt: notes.summarize') });
  });

  it('relays progress with the caller token and log messages by each session level', async () => {
    const verbose = await open(ALICE);
    const quiet = await open(ALICE);
    const bob = await open(BOB);
    await verbose.client.setLoggingLevel('debug');
    await quiet.client.setLoggingLevel('warning');
    await bob.client.setLoggingLevel('debug');
    const progress: Array<{ progress: number; total?: number }> = [];
    const counted = await verbose.client.callTool({ name: 'notes.count', arguments: { to: 3 } }, undefined, {
      onprogress: (p) => progress.push({ progress: p.progress, total: p.total }),
    });
    expect(textOf(counted)).toBe('counted to 3');
    expect(progress).toEqual([{ progress: 1, total: 3 }, { progress: 2, total: 3 }, { progress: 3, total: 3 }]);
    await waitFor(async () => (verbose.logs.length >= 3 ? true : undefined), 'the debug steps at the verbose session');
    expect(verbose.logs.map((l) => l.data)).toEqual(['step 1 of 3', 'step 2 of 3', 'step 3 of 3']);

    expect(textOf(await quiet.client.callTool({ name: 'notes.shout', arguments: {} }))).toBe('shouted');
    await waitFor(async () => (quiet.logs.length >= 1 ? true : undefined), 'the shout at the calling session');
    expect(quiet.logs.map((l) => [l.level, l.data])).toEqual([['warning', 'a warning message']]);
    // Another session of the same principal did not call: the shout is not its business.
    expect(verbose.logs).toHaveLength(3);
    expect(bob.logs).toEqual([]);
  });

  it("relays an upstream's log lines only to the one caller in flight, never to another tenant that called that server before", async () => {
    const alice = await open(ACME);
    const bob = await open(GLOBEX);
    await alice.client.setLoggingLevel('debug');
    await bob.client.setLoggingLevel('debug');
    const said = (who: Downstream) => who.logs.map((l) => String(l.data));
    expect(textOf(await bob.client.callTool({ name: 'qa.logrel', arguments: { who: 'bob' } }))).toBe('logged for bob');
    expect(textOf(await alice.client.callTool({ name: 'qa.logrel', arguments: { who: 'alice' } }))).toBe('logged for alice');
    await waitFor(async () => (said(alice).includes('related log for alice') && said(bob).includes('related log for bob') ? true : undefined), 'each caller its own line');

    // Both in flight when bob's lines arrive: whose they are cannot be told, so nobody gets them.
    const slow = alice.client.callTool({ name: 'qa.logrel', arguments: { who: 'alice again', waitMs: 1500 } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(textOf(await bob.client.callTool({ name: 'qa.logrel', arguments: { who: 'bob again' } }))).toBe('logged for bob again');
    expect(textOf(await slow)).toBe('logged for alice again');
    await waitFor(async () => (said(alice).includes('related log for alice again') ? true : undefined), "alice's second line");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(said(bob).filter((line) => line.includes('alice'))).toEqual([]);
    expect(said(alice).filter((line) => line.includes('bob'))).toEqual([]);
    expect(said(bob).filter((line) => line.includes('bob again'))).toEqual([]);
  });

  it('relays sampling and elicitation only when registered and declared, to the caller, and audits both ways', async () => {
    const capable = await open(ALICE, { sampling: {}, elicitation: {} });
    const plainClient = await open(ALICE);
    const sampled = await capable.client.callTool({ name: 'notes.ask-model', arguments: { question: 'the answer?' } });
    expect(textOf(sampled)).toBe('model said: forty-two');
    const elicited = await capable.client.callTool({ name: 'notes.ask-user', arguments: { question: 'a title, please' } });
    expect(textOf(elicited)).toBe('user said: Q3 plan');
    expect([capable.sampled, capable.elicited]).toEqual([['the answer?'], ['a title, please']]);

    const notAllowed = await capable.client.callTool({ name: 'memo.ask-model', arguments: { question: 'leak?' } });
    expect(textOf(notAllowed)).toContain('memo is not registered for sampling/createMessage');
    const notDeclared = await plainClient.client.callTool({ name: 'notes.ask-user', arguments: { question: 'title?' } });
    expect(textOf(notDeclared)).toContain('the client did not declare elicitation');
    expect([capable.sampled, capable.elicited]).toEqual([['the answer?'], ['a title, please']]);

    const admin = await token(ADMIN);
    const trail = (type: string, count: number) => waitFor(async () => {
      const r = await http('GET', `${urls.audit}/v1/audit?principal=alice&type=${type}`, admin);
      const entries = r.body.entries as Array<Record<string, unknown>> | undefined;
      return entries?.length === count ? entries : undefined;
    }, `${count} ${type} in the audit trail`);
    const relayed = await trail('UpstreamRequestRelayed', 2);
    expect(relayed.map((e) => [e.tool, e.outcome]).sort()).toEqual([['notes.ask-model', 'answered'], ['notes.ask-user', 'answered']]);
    const refused = await trail('UpstreamRequestRefused', 2);
    expect(refused.map((e) => [e.tool, e.outcome]).sort()).toEqual([
      ['memo.ask-model', 'refused:not_allowed'],
      ['notes.ask-user', 'refused:client_not_capable'],
    ]);
  });

  it("finds an upstream that restarted (its session forgotten) on the next proxied request, without waiting for a tool call", async () => {
    const alice = await open(ALICE);
    expect((await alice.client.listResources()).resources.map((r) => r.uri)).toContain('notes://notes/welcome');
    const old = upstreams.get('notes') as NotesServerHandle;
    await old.close();
    upstreams.set('notes', await startNotesServer({ name: 'notes', port: Number(new URL(old.url).port) }));
    // The edge's session with it is gone (the new server answers it 404): a list or two later it has reconnected.
    const uris = await waitFor(async () => {
      const listed = (await alice.client.listResources()).resources.map((r) => r.uri);
      return listed.includes('notes://notes/welcome') ? listed : undefined;
    }, 'notes://notes/welcome listed again after the restart', 15000);
    expect(uris).toContain('notes://notes/welcome');
    expect((await alice.client.readResource({ uri: 'notes://notes/welcome' })).contents[0]).toMatchObject({ text: 'Welcome to the notes server.' });
  });
});
