import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { createLogger } from '@estate/platform';
import { composeEstate } from '../apps/estate/src/estate.composition';
import { startBankServer } from '../examples/bank/bank.server';
import { bankSpecs } from '../examples/bank/bank.specs';
import { startNotesServer } from '../examples/notes/notes.http';
import { notesSpecs } from '../examples/notes/notes.specs';
import { ADMIN, http, TEST_SECRET, token, waitFor } from './support/estate.harness';
import { createTestDatabase, kafkaBrokers, randomTopicPrefix, REPO_ROOT } from './support/infra';

const ALICE = { sub: 'alice', scope: 'bank:read notes:read', clearance: 'internal' };
const ENTRY = path.join(REPO_ROOT, 'dist/apps/mcp-edge/src/stdio/main.js');
const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

type Json = Record<string, unknown>;

/**
 * MCP 2026-07-28 on the stdio edge (built entry point: run `npm run build` first): messages that
 * carry their version in `_meta` are answered without a handshake, beside the session the process
 * holds for older clients.
 */
describe('the stdio edge on MCP 2026-07-28', () => {
  const stops: Array<() => Promise<void>> = [];
  const lines: string[] = [];
  let child: ChildProcessWithoutNullStreams;
  let registryUrl = '';
  let admin = '';
  const lookup = bankSpecs('bank')[0];
  const messages = () => lines.map((line) => JSON.parse(line) as Json);
  const send = (message: Json) => child.stdin.write(`${JSON.stringify(message)}\n`);
  const answer = (id: unknown) => waitFor(async () => messages().find((m) => m.id === id && ('result' in m || 'error' in m)), `the answer to ${String(id)}`, 20000);
  let nextId = 0;
  /** Lists until a tool's description contains `marker` (the catalog reaches the process through Kafka). */
  const listUntil = (marker: string) => waitFor(async () => {
    nextId += 1;
    send({ jsonrpc: '2.0', id: nextId, method: 'tools/list', params: { _meta: META } });
    const listed = (await answer(nextId)) as { result?: { tools: Array<{ description: string }> } };
    return listed.result?.tools.some((t) => t.description.includes(marker)) ? listed.result : undefined;
  }, `a tool described with "${marker}" at the stdio edge`, 30000);

  beforeAll(async () => {
    const db = await createTestDatabase();
    stops.push(db.drop);
    const bank = await startBankServer({ port: 0 });
    stops.push(bank.close);
    const prefix = randomTopicPrefix();
    const brokers = kafkaBrokers().join(',');
    const base = { ESTATE_JWT_SECRET: TEST_SECRET, ESTATE_TOPIC_PREFIX: prefix, KAFKA_BROKERS: brokers, ESTATE_REGISTRY_PORT: '0', ESTATE_DISCOVERY_PORT: '0', ESTATE_DISCOVERY_GROUP: `discovery-${Date.now()}` };
    const estate = await composeEstate({ env: base, databaseUrl: db.url, logger: createLogger('e2e', 'error'), services: ['registry', 'discovery'] });
    stops.push(estate.stop);
    registryUrl = estate.registry?.url ?? '';
    admin = await token(ADMIN);
    expect((await http('POST', `${registryUrl}/v1/servers`, admin, { name: 'bank', url: bank.url, owner: 'payments-team' })).status).toBe(201);
    expect((await http('POST', `${registryUrl}/v1/tools`, admin, lookup)).status).toBe(201);
    // An upstream with prompts and resources, and a tool that asks the user something mid-call (the input_required relay).
    const notes = await startNotesServer({ name: 'notes' });
    stops.unshift(notes.close);
    expect((await http('POST', `${registryUrl}/v1/servers`, admin, { name: 'notes', url: notes.url, owner: 'notes-team', allowElicitation: true })).status).toBe(201);
    for (const spec of notesSpecs('notes')) {
      if (spec.name !== 'notes.ask-user') expect((await http('POST', `${registryUrl}/v1/tools`, admin, spec)).status).toBe(201);
    }
    const askUser = notesSpecs('notes', 'notes', 'bank:read').find((spec) => spec.name === 'notes.ask-user');
    expect((await http('POST', `${registryUrl}/v1/tools`, admin, askUser)).status).toBe(201);
    const env = { ESTATE_JWT_SECRET: TEST_SECRET, ESTATE_TOPIC_PREFIX: prefix, KAFKA_BROKERS: brokers, ESTATE_STDIO_TOKEN: await token(ALICE) };
    child = spawn(process.execPath, [ENTRY], { cwd: REPO_ROOT, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    createInterface({ input: child.stdout }).on('line', (line) => lines.push(line));
    child.stderr.resume();
  }, 60000);

  afterAll(async () => {
    if (child) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.stdin.end();
      await exited;
    }
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  });

  it('discovers, lists, calls, and hears list_changed on a listen subscription until it is cancelled', async () => {
    send({ jsonrpc: '2.0', id: 'd', method: 'server/discover', params: { _meta: META } });
    expect(await answer('d')).toMatchObject({ result: { supportedVersions: expect.arrayContaining(['2026-07-28']), resultType: 'complete', cacheScope: 'private' } });
    expect(await listUntil('Read-only')).toMatchObject({ resultType: 'complete', cacheScope: 'private', ttlMs: expect.any(Number) });
    send({ jsonrpc: '2.0', id: 'c', method: 'tools/call', params: { name: 'bank.lookup', arguments: { reference: 'PMT-9' }, _meta: META } });
    expect(await answer('c')).toMatchObject({ result: { resultType: 'complete', structuredContent: { reference: 'PMT-9' } } });
    send({ jsonrpc: '2.0', id: 'u', method: 'tools/call', params: { name: 'bank.nothing', arguments: {}, _meta: META } });
    expect(await answer('u')).toMatchObject({ error: { code: -32601, message: 'Unknown tool: bank.nothing' } });

    send({ jsonrpc: '2.0', id: 'listen', method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true }, _meta: META } });
    const acknowledged = (m: Json) => m.method === 'notifications/subscriptions/acknowledged';
    expect(await waitFor(async () => messages().find(acknowledged), 'the acknowledgement')).toMatchObject({ params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 'listen' } } });
    expect((await http('POST', `${registryUrl}/v1/tools`, admin, { ...lookup, version: '1.1.0', description: `${lookup.description} (1.1.0)` })).status).toBe(201);
    const changed = (m: Json) => m.method === 'notifications/tools/list_changed';
    expect(await waitFor(async () => messages().find(changed), 'list_changed on stdio', 20000)).toEqual({
      jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 'listen' } },
    });

    send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'listen' } });
    const heard = messages().filter(changed).length;
    expect((await http('POST', `${registryUrl}/v1/tools`, admin, { ...lookup, version: '1.2.0', description: `${lookup.description} (1.2.0)` })).status).toBe(201);
    await listUntil('(1.2.0)');
    // The change reached the process; a cancelled subscription must not have carried it.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(messages().filter(changed).length).toBe(heard);
  });

  it("hands an upstream's mid-call elicitation to the agent as input_required and resumes the call on the retry", async () => {
    const meta = { ...META, 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } };
    const params = { name: 'notes.ask-user', arguments: { question: 'a title over stdio' }, _meta: meta };
    const asked = await waitFor(async () => {
      nextId += 1;
      send({ jsonrpc: '2.0', id: nextId, method: 'tools/call', params });
      const reply = (await answer(nextId)) as { result?: Json };
      return reply.result?.['resultType'] === 'input_required' ? reply.result : undefined;
    }, 'an input_required answer once notes.ask-user reached the process', 30000);
    const requests = asked['inputRequests'] as Record<string, { method: string; params: Json }>;
    const [[key, request]] = Object.entries(requests);
    expect(request).toMatchObject({ method: 'elicitation/create', params: { message: 'a title over stdio' } });
    send({ jsonrpc: '2.0', id: 'resumed', method: 'tools/call', params: { ...params, inputResponses: { [key]: { action: 'accept', content: { title: 'Stdio' } } }, requestState: asked['requestState'] } });
    expect(await answer('resumed')).toMatchObject({ result: { resultType: 'complete', content: [{ type: 'text', text: 'user said: Stdio' }] } });
  });

  it('serves prompts, resources and completions, and resources/updated on a listen subscription', async () => {
    send({ jsonrpc: '2.0', id: 'pd', method: 'server/discover', params: { _meta: META } });
    expect(await answer('pd')).toMatchObject({ result: { capabilities: { resources: { subscribe: true, listChanged: true }, prompts: { listChanged: true }, completions: {} } } });
    await listUntil('Marks a note');
    send({ jsonrpc: '2.0', id: 'pl', method: 'prompts/list', params: { _meta: META } });
    expect(await answer('pl')).toMatchObject({ result: { prompts: [{ name: 'notes.summarize' }], cacheScope: 'private', ttlMs: expect.any(Number) } });
    send({ jsonrpc: '2.0', id: 'pu', method: 'prompts/get', params: { name: 'bank.summarize', _meta: META } });
    expect(await answer('pu')).toMatchObject({ error: { code: -32602, message: 'Unknown prompt: bank.summarize' } });
    send({ jsonrpc: '2.0', id: 'rr', method: 'resources/read', params: { uri: 'notes://notes/welcome', _meta: META } });
    expect(await answer('rr')).toMatchObject({ result: { contents: [{ text: 'Welcome to the notes server.' }], cacheScope: 'private', ttlMs: 0 } });
    send({ jsonrpc: '2.0', id: 'cc', method: 'completion/complete', params: { ref: { type: 'ref/prompt', name: 'notes.summarize' }, argument: { name: 'topic', value: 'hol' }, _meta: META } });
    expect(await answer('cc')).toMatchObject({ result: { completion: { values: ['holidays'] } } });

    send({ jsonrpc: '2.0', id: 'watch', method: 'subscriptions/listen', params: { notifications: { resourceSubscriptions: ['notes://notes/memo'] }, _meta: META } });
    const acknowledged = (m: Json) => m.method === 'notifications/subscriptions/acknowledged' && (m.params as Json)['notifications'] !== undefined && JSON.stringify(m).includes('"watch"');
    expect(await waitFor(async () => messages().find(acknowledged), 'the acknowledgement')).toMatchObject({ params: { notifications: { resourceSubscriptions: ['notes://notes/memo'] } } });
    send({ jsonrpc: '2.0', id: 't', method: 'tools/call', params: { name: 'notes.touch', arguments: { id: 'memo' }, _meta: META } });
    expect(await answer('t')).toMatchObject({ result: { content: [{ text: 'touched memo' }] } });
    const updated = (m: Json) => m.method === 'notifications/resources/updated';
    expect(await waitFor(async () => messages().find(updated), 'resources/updated on stdio')).toEqual({
      jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'notes://notes/memo', _meta: { 'io.modelcontextprotocol/subscriptionId': 'watch' } },
    });
    send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'watch' } });
  });

  it('still serves a session-era client on the same process', async () => {
    send({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'old', version: '1' } } });
    expect(await answer('init')).toMatchObject({ result: { protocolVersion: '2025-11-25' } });
  });
});
