import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Principal } from '@estate/contracts';
import { connect, token, waitFor } from './support/estate.harness';
import { ALICE, BOB, startEdgeStack, type EdgeHandle, type EdgeStack } from './support/edge-stack';
import { ACCEPT_BOTH, openStream, raw, RawSession, RevisionPinnedTransport, sseMessages } from './support/edge-wire';

const alicePrincipal: Principal = { id: 'alice', scopes: ['bank:read'], clearance: 'internal' };

describe('the edge on the wire: versions, lifecycle, Streamable HTTP', () => {
  let stack: EdgeStack;
  let edge: EdgeHandle;

  beforeAll(async () => {
    stack = await startEdgeStack();
    edge = await stack.startEdgeWithLookup();
  }, 120000);

  afterAll(async () => {
    await stack?.stop();
  });

  describe('version negotiation', () => {
    it.each(['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'])('echoes %s, declares tools.listChanged, and records what it answered', async (version) => {
      const session = new RawSession(edge.mcpUrl, await token(ALICE));
      const init = await session.initialize(version);
      expect(init.status).toBe(200);
      expect(init.headers['content-type']).toMatch(/^text\/event-stream/);
      expect(init.result).toMatchObject({ protocolVersion: version, capabilities: { tools: { listChanged: true } } });
      expect(edge.sessions.find(session.id, alicePrincipal)?.protocolVersion).toBe(version);
    });

    it.each([['2099-01-01'], ['2024-10-07'], [42]])('answers the newest version for %p and never fails the handshake', async (version) => {
      const session = new RawSession(edge.mcpUrl, await token(ALICE));
      const init = await session.initialize(version);
      expect(init.status).toBe(200);
      expect(init.result?.protocolVersion).toBe('2025-11-25');
      expect(edge.sessions.find(session.id, alicePrincipal)?.protocolVersion).toBe('2025-11-25');
      // The session really runs on 2025-11-25: batches are refused there.
      await session.post({ jsonrpc: '2.0', method: 'notifications/initialized' });
      const batch = await session.post([{ jsonrpc: '2.0', id: 1, method: 'ping' }]);
      expect(batch.status).toBe(400);
    });

    it('hands the official SDK client the listChanged capability, a working list and call, and the notification', async () => {
      const alice = await connect(edge.mcpUrl, await token(ALICE));
      try {
        expect(alice.client.getServerCapabilities()?.tools?.listChanged).toBe(true);
        expect((await alice.client.listTools()).tools.map((t) => t.name)).toEqual(['bank.lookup']);
        const result = await alice.client.callTool({ name: 'bank.lookup', arguments: { reference: 'PMT-771' } });
        expect(result.structuredContent).toMatchObject({ reference: 'PMT-771' });
        await stack.publishLookup('1.1.0');
        await waitFor(async () => (alice.listChanged.length > 0 ? true : undefined), 'list_changed at the SDK client');
      } finally {
        await alice.close();
      }
    });
  });

  describe('what an older revision is sent (the official SDK client opened on it)', () => {
    /** The members each revision's schema.ts gives a Tool and a CallToolResult, as far as bank.lookup fills them. */
    const SHAPES: Record<string, { tool: string[]; result: string[] }> = {
      '2024-11-05': { tool: ['description', 'inputSchema', 'name'], result: ['content'] },
      '2025-03-26': { tool: ['annotations', 'description', 'inputSchema', 'name'], result: ['content'] },
      '2025-06-18': { tool: ['annotations', 'description', 'inputSchema', 'name', 'title'], result: ['content', 'structuredContent'] },
    };
    const offered = { tools: { listChanged: true }, resources: { subscribe: true, listChanged: true }, prompts: { listChanged: true }, logging: {} };

    it.each(Object.keys(SHAPES))('%s: initialize, tools/list and tools/call carry only what its schema has', async (version) => {
      const transport = new RevisionPinnedTransport(edge.mcpUrl, await token(ALICE), version);
      const client = new Client({ name: 'older', version: '1.0.0' });
      await client.connect(transport);
      try {
        await client.listTools();
        await client.callTool({ name: 'bank.lookup', arguments: { reference: 'PMT-771' } });
        const [init, list, call] = transport.received.filter((m) => 'result' in m).map((m) => (m as { result: Record<string, unknown> }).result);
        // The completions capability first appears in 2025-03-26.
        expect(init).toEqual({ protocolVersion: version, capabilities: version === '2024-11-05' ? offered : { ...offered, completions: {} }, serverInfo: { name: 'estate-edge', version: '0.1.0' } });
        const tools = list.tools as Array<Record<string, unknown>>;
        expect(tools.map((tool) => Object.keys(tool).sort())).toEqual([SHAPES[version].tool]);
        expect(Object.keys(call).sort()).toEqual(SHAPES[version].result);
        // Structured content still reaches an older client, as the JSON text the tool sent beside it (once).
        const payment = JSON.parse((call.content as Array<{ text: string }>)[0].text) as Record<string, unknown>;
        expect(call.content).toEqual([{ type: 'text', text: JSON.stringify(payment) }]);
        expect(payment).toMatchObject({ reference: 'PMT-771' });
      } finally {
        await client.close();
      }
    });

    it('answers a request inside a session whose _meta names the session revision as part of that session', async () => {
      const session = await RawSession.open(edge.mcpUrl, ALICE);
      const params = { _meta: { 'io.modelcontextprotocol/protocolVersion': '2025-11-25' } };
      const answer = await session.call('tools/list', params);
      expect(answer.status).toBe(200);
      expect((answer.message.result as { tools: Array<{ name: string }> }).tools.map((t) => t.name)).toEqual(['bank.lookup']);
      const headed = await session.post({ jsonrpc: '2.0', id: 'h', method: 'tools/list', params }, { 'mcp-protocol-version': '2025-11-25' });
      expect(headed.status).toBe(200);
      expect(sseMessages(headed.text)[0]).toMatchObject({ id: 'h', result: { tools: [{ name: 'bank.lookup' }] } });
    });
  });

  describe('lifecycle and id rules', () => {
    it('refuses a request without a session, before initialized, and a second initialize, each with a reason', async () => {
      const session = new RawSession(edge.mcpUrl, await token(ALICE));
      const none = await session.call('tools/list', undefined, 7);
      expect(none).toMatchObject({ status: 400, message: { id: 7, error: { code: -32600, message: expect.stringContaining('send initialize first') } } });
      await session.initialize('2025-11-25');
      const early = await session.call('tools/list', undefined, 8);
      expect(early).toMatchObject({ status: 400, message: { id: 8, error: { code: -32600, message: expect.stringContaining('notifications/initialized') } } });
      expect((await session.call('ping')).message).toMatchObject({ result: {} });
      expect((await session.post({ jsonrpc: '2.0', method: 'notifications/initialized' })).status).toBe(202);
      const again = await session.initialize('2025-11-25', 99);
      expect(again.status).toBe(400);
      expect(JSON.parse(again.text)).toMatchObject({ id: 99, error: { code: -32600, message: expect.stringContaining('initialize was already received') } });
      expect((await session.call('tools/list')).message).toMatchObject({ result: { tools: [expect.objectContaining({ name: 'bank.lookup' })] } });
    });

    it.each([[1.5, 'float'], [null, 'null'], [true, 'boolean']])('refuses the id %p (%s) with -32600 and keeps the session usable', async (id, kind) => {
      const session = await RawSession.open(edge.mcpUrl, ALICE);
      const refused = await session.call('tools/list', undefined, id);
      expect(refused).toMatchObject({ status: 400, message: { id: null, error: { code: -32600, message: expect.stringContaining(kind) } } });
      expect((await session.call('tools/list')).message.result).toBeDefined();
    });

    it('refuses an id used before in the same session, but not in another session', async () => {
      const first = await RawSession.open(edge.mcpUrl, ALICE);
      const second = await RawSession.open(edge.mcpUrl, ALICE);
      expect((await first.call('tools/list', undefined, 'abc')).message.result).toBeDefined();
      const reused = await first.call('ping', undefined, 'abc');
      expect(reused).toMatchObject({ status: 400, message: { id: 'abc', error: { code: -32600, message: expect.stringContaining('already used') } } });
      expect((await second.call('tools/list', undefined, 'abc')).message.result).toBeDefined();
    });

    it('refuses a method without id whose jsonrpc is not exactly "2.0" with -32600, HTTP 400 and id null, not as a notification', async () => {
      const session = await RawSession.open(edge.mcpUrl, ALICE);
      for (const body of [{ jsonrpc: '1.0', method: 'ping' }, { method: 'ping' }, { jsonrpc: '1.0', method: 'notifications/initialized' }]) {
        const answer = await session.post(body);
        expect({ body, status: answer.status, message: JSON.parse(answer.text) }).toEqual({
          body, status: 400, message: { jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringContaining('jsonrpc must be "2.0"') } },
        });
      }
      expect((await session.call('tools/list')).message.result).toBeDefined();
    });

    it('answers notifications, even malformed or unknown ones, with 202 and no body', async () => {
      const session = await RawSession.open(edge.mcpUrl, ALICE);
      for (const body of [
        { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 12345 } },
        { jsonrpc: '2.0', method: 'notifications/made-up' },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', method: 'notifications/x', params: 'not an object' },
      ]) {
        const answer = await session.post(body);
        expect({ body, status: answer.status, text: answer.text }).toEqual({ body, status: 202, text: '' });
      }
    });

    it.each(['2025-11-25', '2025-06-18'])('refuses batches on %s', async (version) => {
      const session = await RawSession.open(edge.mcpUrl, ALICE, version);
      const answer = await session.post([{ jsonrpc: '2.0', id: 1, method: 'ping' }, { jsonrpc: '2.0', id: 2, method: 'tools/list' }]);
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.text)).toMatchObject({ id: null, error: { code: -32600, message: expect.stringContaining('batches are not supported') } });
    });

    it('accepts a batch on 2025-03-26 and answers every request in it', async () => {
      const session = await RawSession.open(edge.mcpUrl, ALICE, '2025-03-26');
      const answer = await session.post([
        { jsonrpc: '2.0', id: 1, method: 'ping' },
        { jsonrpc: '2.0', method: 'notifications/made-up' },
        { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      ]);
      expect(answer.status).toBe(200);
      const messages = sseMessages(answer.text);
      expect(messages.map((m) => m.id).sort()).toEqual([1, 2]);
      expect(messages.find((m) => m.id === 2)?.result).toMatchObject({ tools: [expect.objectContaining({ name: 'bank.lookup' })] });
    });

    it('uses no id on a request refused before it ran: at the HTTP level, for its phase, or by the transport', async () => {
      const session = await RawSession.open(edge.mcpUrl, ALICE, '2025-06-18');
      const { accept: _accept, ...noAccept } = session.headers();
      const refused = await raw(edge.mcpUrl, { headers: noAccept, body: JSON.stringify({ jsonrpc: '2.0', id: 101, method: 'tools/list' }) });
      expect(refused.status).toBe(406);
      expect((await session.call('tools/list', undefined, 101)).message).toMatchObject({ id: 101, result: { tools: [expect.objectContaining({ name: 'bank.lookup' })] } });
      // A message the SDK's schema refuses (a _meta that is not an object) is refused whole by the transport.
      const unreadable = await session.post({ jsonrpc: '2.0', id: 102, method: 'estate/unknown', params: { _meta: 5 } });
      expect(unreadable.status).toBe(400);
      expect((await session.call('ping', undefined, 102)).message).toMatchObject({ id: 102, result: {} });

      const fresh = new RawSession(edge.mcpUrl, await token(ALICE));
      await fresh.initialize('2025-06-18');
      expect((await fresh.call('tools/list', undefined, 5)).message).toMatchObject({ id: 5, error: { code: -32600, message: expect.stringContaining('notifications/initialized') } });
      // notifications/initialized refused for its Accept header does not start the session either.
      const { accept: _none, ...bare } = fresh.headers();
      expect((await raw(edge.mcpUrl, { headers: bare, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })).status).toBe(406);
      expect((await fresh.call('tools/list', undefined, 6)).message).toMatchObject({ id: 6, error: { message: expect.stringContaining('notifications/initialized') } });
      expect((await fresh.post({ jsonrpc: '2.0', method: 'notifications/initialized' })).status).toBe(202);
      expect((await fresh.call('tools/list', undefined, 5)).message).toMatchObject({ id: 5, result: { tools: expect.any(Array) } });
    });

    it('refuses a 2025-03-26 batch with a bad entry whole, answering only that entry, and uses none of its ids', async () => {
      const session = await RawSession.open(edge.mcpUrl, ALICE, '2025-03-26');
      const refused = await session.post([{ jsonrpc: '2.0', id: 12, method: 'ping' }, { jsonrpc: '2.0', id: 13, method: 'ping', params: [] }]);
      expect(refused.status).toBe(400);
      expect(JSON.parse(refused.text)).toEqual([{ jsonrpc: '2.0', id: 13, error: { code: -32600, message: expect.stringContaining('params must be an object') } }]);
      // A duplicate inside a batch refuses it too, and frees the id its first entry took.
      const doubled = await session.post([{ jsonrpc: '2.0', id: 14, method: 'ping' }, { jsonrpc: '2.0', id: 14, method: 'ping' }]);
      expect(doubled.status).toBe(400);
      expect(JSON.parse(doubled.text)).toEqual([{ jsonrpc: '2.0', id: 14, error: { code: -32600, message: 'Invalid Request: id 14 is repeated within this batch; give every request in a batch its own id' } }]);
      // Said so in a fresh session too: the id was never used, only given twice.
      const fresh = await RawSession.open(edge.mcpUrl, ALICE, '2025-03-26');
      const call = { jsonrpc: '2.0', id: 'b1', method: 'tools/call', params: { name: 'bank.lookup', arguments: { reference: 'PMT-1' } } };
      const twice = await fresh.post([call, call]);
      expect(twice.status).toBe(400);
      expect(JSON.parse(twice.text)).toEqual([{ jsonrpc: '2.0', id: 'b1', error: { code: -32600, message: 'Invalid Request: id "b1" is repeated within this batch; give every request in a batch its own id' } }]);
      const fixed = await session.post([{ jsonrpc: '2.0', id: 12, method: 'ping' }, { jsonrpc: '2.0', id: 13, method: 'ping' }, { jsonrpc: '2.0', id: 14, method: 'ping' }]);
      expect(fixed.status).toBe(200);
      expect(sseMessages(fixed.text).map((m) => [m.id, m.result])).toEqual(expect.arrayContaining([[12, {}], [13, {}], [14, {}]]));
      // Ids of a batch that ran are used.
      expect((await session.call('ping', undefined, 12)).message).toMatchObject({ id: 12, error: { message: expect.stringContaining('already used') } });
    });

    it('answers unparseable JSON and non-UTF-8 bytes with -32700', async () => {
      const session = await RawSession.open(edge.mcpUrl, ALICE);
      for (const body of ['{"jsonrpc": "2.0", "id": 1, "method": ', Buffer.from([0x7b, 0xff, 0xfe, 0x7d])]) {
        const answer = await raw(edge.mcpUrl, { headers: session.headers(), body });
        expect(answer.status).toBe(400);
        expect(JSON.parse(answer.text)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
      }
    });
  });

  describe('Streamable HTTP', () => {
    it('issues a session id on initialize that only its own principal can use, and 404 for unknown ones', async () => {
      const session = await RawSession.open(edge.mcpUrl, ALICE);
      expect(session.id).toMatch(/^[0-9a-f-]{36}$/);
      const asBob = await raw(edge.mcpUrl, { headers: session.headers({ authorization: `Bearer ${await token(BOB)}` }), body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' });
      const unknown = await raw(edge.mcpUrl, { headers: session.headers({ 'mcp-session-id': 'no-such-session' }), body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' });
      expect(asBob.status).toBe(404);
      expect(unknown.status).toBe(404);
      expect(asBob.text).toBe(unknown.text);
      expect(JSON.parse(unknown.text)).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } });
      const bobGet = await raw(edge.mcpUrl, { method: 'GET', headers: { ...session.headers({ authorization: `Bearer ${await token(BOB)}` }), accept: 'text/event-stream' } });
      expect(bobGet).toMatchObject({ status: 404, text: unknown.text });
      expect((await session.call('ping')).message.result).toEqual({});
    });

    it('ends a session on DELETE; afterwards the id is unknown', async () => {
      const session = await RawSession.open(edge.mcpUrl, ALICE);
      const deleted = await raw(edge.mcpUrl, { method: 'DELETE', headers: session.headers() });
      expect(deleted.status).toBe(200);
      expect((await session.call('ping')).status).toBe(404);
      expect((await raw(edge.mcpUrl, { method: 'DELETE', headers: session.headers() })).status).toBe(404);
    });

    it('checks MCP-Protocol-Version: any supported value or none is accepted, anything else is 400', async () => {
      const session = await RawSession.open(edge.mcpUrl, ALICE);
      const ping = '{"jsonrpc":"2.0","id":"%","method":"ping"}';
      const absent = await raw(edge.mcpUrl, { headers: session.headers(), body: ping.replace('%', 'a') });
      const older = await raw(edge.mcpUrl, { headers: session.headers({ 'mcp-protocol-version': '2025-03-26' }), body: ping.replace('%', 'b') });
      const unknown = await raw(edge.mcpUrl, { headers: session.headers({ 'mcp-protocol-version': '2024-10-07' }), body: ping.replace('%', 'c') });
      expect([absent.status, older.status]).toEqual([200, 200]);
      expect(unknown.status).toBe(400);
      expect(JSON.parse(unknown.text)).toMatchObject({ error: { code: -32600, message: expect.stringContaining('MCP-Protocol-Version') } });
    });

    it('delivers list_changed on the standalone GET stream and replays a missed one after a reconnect with Last-Event-ID', async () => {
      const session = await RawSession.open(edge.mcpUrl, ALICE);
      const getHeaders = { ...session.headers(), accept: 'text/event-stream' };
      const stream = await openStream(edge.mcpUrl, getHeaders);
      expect(stream.status).toBe(200);
      await stack.publishLookup('1.2.0');
      const first = await stream.waitFor((e) => e.data.includes('notifications/tools/list_changed'), 15000);
      expect(first.id).toBeTruthy();
      stream.close();
      const live = edge.sessions.find(session.id, alicePrincipal)!;
      await waitFor(async () => (live.openStreams === 0 ? true : undefined), 'the edge to see the stream close');
      await stack.publishLookup('1.3.0');
      // The notification is stored while nobody listens; the reconnect must bring it back.
      await waitFor(async () => (live.storedEvents('_GET_stream') === 2 ? true : undefined), 'the missed list_changed to be stored');
      const resumed = await openStream(edge.mcpUrl, { ...getHeaders, 'last-event-id': first.id! });
      try {
        expect(resumed.status).toBe(200);
        const missed = await resumed.waitFor((e) => e.data.includes('notifications/tools/list_changed'));
        expect(missed.id).not.toBe(first.id);
        expect(JSON.parse(missed.data)).toEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
      } finally {
        resumed.close();
      }
      expect((await session.call('tools/list')).message.result).toMatchObject({ tools: [expect.objectContaining({ description: expect.stringContaining('1.3.0') })] });
    });

    it('answers every POST request over SSE, never as plain JSON', async () => {
      const session = await RawSession.open(edge.mcpUrl, ALICE);
      const answer = await session.post({ jsonrpc: '2.0', id: 5, method: 'tools/list' });
      expect(answer.headers['content-type']).toMatch(/^text\/event-stream/);
      expect(sseMessages(answer.text)[0]).toMatchObject({ id: 5, result: { tools: expect.any(Array) } });
    });

    it('never reaches a session of another transport over HTTP', async () => {
      const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
      const stdio = edge.sessions.attach(alicePrincipal, serverSide);
      try {
        expect(edge.sessions.find(stdio.id, alicePrincipal)).toBeUndefined();
        const answer = await raw(edge.mcpUrl, { headers: { authorization: `Bearer ${await token(ALICE)}`, 'content-type': 'application/json', accept: ACCEPT_BOTH, 'mcp-session-id': stdio.id }, body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' });
        expect(answer.status).toBe(404);
      } finally {
        await clientSide.close();
        await edge.sessions.remove(stdio.id);
      }
    });
  });

  describe('idle expiry', () => {
    it('closes a session idle for ESTATE_SESSION_IDLE_SECONDS; its id is then unknown', async () => {
      const quick = await stack.startEdge({ ESTATE_SESSION_IDLE_SECONDS: '1' });
      const session = await RawSession.open(quick.mcpUrl, ALICE);
      expect((await session.call('ping')).status).toBe(200);
      expect(quick.sessions.size).toBe(1);
      await waitFor(async () => (quick.sessions.size === 0 ? true : undefined), 'the idle session to be swept', 10000);
      expect((await session.call('ping')).status).toBe(404);
    });
  });
});
