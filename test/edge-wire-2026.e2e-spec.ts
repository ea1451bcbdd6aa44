import { bankSpecs } from '../examples/bank/bank.specs';
import { token, waitFor } from './support/estate.harness';
import { ACCEPT_BOTH, mirroredHeaders, openStream, raw } from './support/edge-wire';
import { startToolsStack, type ToolsStack } from './support/edge-tools.fixture';

/*
 * The seed rules of edge-wire.e2e-spec.ts and edge-tools.e2e-spec.ts, on MCP 2026-07-28: no
 * session, every request carries its version and capabilities in `_meta`, headers mirror the body.
 */

const V = '2026-07-28';
const ALICE = { sub: 'alice', scope: 'bank:read', clearance: 'internal' };
const BOB = { sub: 'bob', scope: 'crm:read', clearance: 'internal' };
const TELLER = { sub: 'teller', scope: 'bank:read bank:write bank:release', clearance: 'confidential' };
const [lookup, transfer, release] = bankSpecs('bank');
const NUKER = { sub: 'nuker', scope: 'bank:nuke', clearance: 'confidential' };
/** A destructive tool with an open schema: the agent chooses its keys. */
const nuke = {
  ...release, name: 'bank.nuke', title: 'Nuke', description: 'Deletes what x names. Cannot be undone.', requiredScopes: ['bank:nuke'],
  inputSchema: { type: 'object', properties: { x: { type: 'string' } } },
};

type Claims = typeof ALICE;
type Message = { jsonrpc: string; id?: unknown; result?: Record<string, unknown>; error?: { code: number; message: string; data?: unknown } };

function meta(capabilities: Record<string, unknown> = {}): Record<string, unknown> {
  return { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': capabilities, 'io.modelcontextprotocol/clientInfo': { name: 'wire-2026', version: '1' } };
}

/** The headers a 2026-07-28 POST mirrors from its body. */
describe('the edge on the wire, MCP 2026-07-28 (no sessions)', () => {
  let stack: ToolsStack;
  const calls = () => stack.bank.stats().total;

  /** One stateless request; `headers` replaces or adds to the mirrored ones (undefined removes one). */
  async function send(claims: Claims, method: string, params: Record<string, unknown> = {}, options: { id?: unknown; headers?: Record<string, string | undefined>; capabilities?: Record<string, unknown>; noMeta?: boolean; url?: string } = {}) {
    const body = { jsonrpc: '2.0', id: 'id' in options ? options.id : 1, method, params: options.noMeta ? params : { ...params, _meta: { ...meta(options.capabilities), ...(params['_meta'] as object) } } };
    const headers: Record<string, string> = { authorization: `Bearer ${await token(claims)}`, 'content-type': 'application/json', accept: ACCEPT_BOTH, ...mirroredHeaders(method, params) };
    for (const [name, value] of Object.entries(options.headers ?? {})) {
      if (value === undefined) delete headers[name];
      else headers[name] = value;
    }
    const answer = await raw(options.url ?? stack.mcpUrl, { headers, body: JSON.stringify(body) });
    return { status: answer.status, headers: answer.headers, text: answer.text, message: (answer.text ? JSON.parse(answer.text) : {}) as Message };
  }

  beforeAll(async () => {
    stack = await startToolsStack({ ESTATE_REQUEST_STATE_KEY: 'k'.repeat(40) });
    for (const spec of [lookup, transfer, release, nuke]) await stack.publish(spec);
    await waitFor(async () => (stack.edge.replica.get('bank.nuke') ? true : undefined), 'the bank tools in the edge catalog');
  }, 120000);

  afterAll(async () => {
    await stack?.stop();
  });

  describe('discovery and versions', () => {
    it('answers server/discover with every version it speaks, tools.listChanged, and cache hints', async () => {
      const answer = await send(ALICE, 'server/discover');
      expect(answer.status).toBe(200);
      expect(answer.headers['mcp-session-id']).toBeUndefined();
      expect(answer.message).toMatchObject({
        id: 1,
        result: {
          supportedVersions: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'],
          capabilities: { tools: { listChanged: true } },
          resultType: 'complete',
          cacheScope: 'private',
          ttlMs: expect.any(Number),
          _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'estate-edge' } },
        },
      });
    });

    it('refuses an unsupported version in _meta with -32022 listing the supported ones', async () => {
      const answer = await send(ALICE, 'tools/list', { _meta: { 'io.modelcontextprotocol/protocolVersion': '2027-01-01' } }, { headers: { 'mcp-protocol-version': '2027-01-01' } });
      expect(answer.status).toBe(400);
      expect(answer.message.error).toMatchObject({ code: -32022, data: { requested: '2027-01-01', supported: expect.arrayContaining([V]) } });
    });

    it('refuses a 2026-07-28 request without the version in _meta with -32602 naming the path', async () => {
      const answer = await send(ALICE, 'tools/list', {}, { noMeta: true, id: 4 });
      expect(answer.status).toBe(400);
      expect(answer.message).toMatchObject({ id: 4, error: { code: -32602, message: expect.stringContaining('params') } });
      const noVersion = await send(ALICE, 'tools/list', { _meta: { 'io.modelcontextprotocol/clientCapabilities': {} } }, { noMeta: true, id: 5 });
      expect(noVersion.status).toBe(400);
      expect(noVersion.message).toMatchObject({ id: 5, error: { code: -32602, message: expect.stringContaining('io.modelcontextprotocol/protocolVersion') } });
    });

    it('answers GET and DELETE from a 2026-07-28 client with 405 and Allow: POST', async () => {
      const bearer = await token(ALICE);
      for (const method of ['GET', 'DELETE']) {
        const answer = await raw(stack.mcpUrl, { method, headers: { authorization: `Bearer ${bearer}`, accept: 'text/event-stream', 'mcp-protocol-version': V } });
        expect({ method, status: answer.status, allow: answer.headers.allow }).toEqual({ method, status: 405, allow: 'POST' });
      }
    });

    it('answers initialize under the 2026-07-28 header as a removed method (404, -32601), and opens no session', async () => {
      const sessionsBefore = stack.edge.sessions.size;
      const init = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'old', version: '1' } };
      const answer = await send(ALICE, 'initialize', init, { noMeta: true, id: 'i' });
      expect(answer.status).toBe(404);
      expect(answer.message).toMatchObject({ id: 'i', error: { code: -32601, message: expect.stringContaining('server/discover') } });
      expect(stack.edge.sessions.size).toBe(sessionsBefore);
    });

    it('answers a version it does not speak, in header and _meta alike, with -32022 and the request id', async () => {
      const answer = await send(ALICE, 'server/discover', { _meta: { 'io.modelcontextprotocol/protocolVersion': 'v999.0.0' } }, { headers: { 'mcp-protocol-version': 'v999.0.0' }, id: 301 });
      expect(answer.status).toBe(400);
      expect(answer.message).toMatchObject({ id: 301, error: { code: -32022, data: { requested: 'v999.0.0' } } });
    });

    it('still authenticates every request: no bearer is 401, whatever the revision', async () => {
      const answer = await send(ALICE, 'tools/list', {}, { headers: { authorization: undefined } });
      expect(answer.status).toBe(401);
    });

    it('refuses a removed method (ping, initialize-free) with 404 and -32601', async () => {
      const answer = await send(ALICE, 'ping', {}, { id: 'p' });
      expect(answer.status).toBe(404);
      expect(answer.message).toMatchObject({ id: 'p', error: { code: -32601 } });
    });
  });

  describe('headers mirror the body', () => {
    it('refuses a missing or disagreeing Mcp-Method, Mcp-Name or MCP-Protocol-Version with -32020 and 400, calling nothing', async () => {
      const before = calls();
      const args = { name: 'bank.lookup', arguments: { reference: 'PMT-1' } };
      const cases = [
        { 'mcp-method': 'tools/list' },
        { 'mcp-method': undefined },
        { 'mcp-name': 'bank.transfer' },
        { 'mcp-name': undefined },
        { 'mcp-protocol-version': '2025-11-25' },
      ];
      for (const headers of cases) {
        const answer = await send(ALICE, 'tools/call', args, { headers, id: 9 });
        expect({ headers, status: answer.status, code: answer.message.error?.code, id: answer.message.id }).toEqual({ headers, status: 400, code: -32020, id: 9 });
      }
      expect(calls()).toBe(before);
    });
  });

  describe('ids, lists and calls', () => {
    it('echoes string and number ids, refuses float and null ids with -32600', async () => {
      expect((await send(ALICE, 'tools/list', {}, { id: 'abc' })).message.id).toBe('abc');
      expect((await send(ALICE, 'tools/list', {}, { id: 77 })).message.id).toBe(77);
      for (const id of [1.5, null]) {
        const answer = await send(ALICE, 'tools/list', {}, { id });
        expect({ id, status: answer.status, code: answer.message.error?.code }).toEqual({ id, status: 400, code: -32600 });
      }
    });

    it('lists per principal, with ttlMs and cacheScope private, and no session is made', async () => {
      const sessionsBefore = stack.edge.sessions.size;
      const alice = await send(ALICE, 'tools/list');
      const teller = await send(TELLER, 'tools/list');
      const bob = await send(BOB, 'tools/list');
      expect(alice.message.result).toMatchObject({ resultType: 'complete', cacheScope: 'private', ttlMs: expect.any(Number) });
      expect((alice.message.result?.['tools'] as Array<{ name: string }>).map((t) => t.name)).toEqual(['bank.lookup']);
      expect((teller.message.result?.['tools'] as Array<{ name: string }>).map((t) => t.name)).toEqual(['bank.lookup', 'bank.release', 'bank.transfer']);
      expect(bob.message.result?.['tools']).toEqual([]);
      expect(stack.edge.sessions.size).toBe(sessionsBefore);
    });

    it('refuses a cursor it never issued with -32602', async () => {
      const answer = await send(ALICE, 'tools/list', { cursor: 'not-a-cursor' });
      expect(answer.message.error?.code).toBe(-32602);
    });

    it('calls a tool through the pipeline and records it', async () => {
      const answer = await send(ALICE, 'tools/call', { name: 'bank.lookup', arguments: { reference: 'PMT-2026' } });
      expect(answer.status).toBe(200);
      expect(answer.message.result).toMatchObject({ resultType: 'complete', structuredContent: { reference: 'PMT-2026' } });
      const done = await stack.audit('principal=alice&type=ToolCallCompleted', 1);
      expect(done[0]).toMatchObject({ tool: 'bank.lookup' });
    });

    it('answers a hidden tool and an unknown tool identically with -32601 (not -32602), reaching no upstream', async () => {
      const before = calls();
      const hidden = await send(BOB, 'tools/call', { name: 'bank.lookup', arguments: { reference: 'PMT-1' } });
      const missing = await send(BOB, 'tools/call', { name: 'bank.lookuq', arguments: { reference: 'PMT-1' } });
      expect(hidden.status).toBe(missing.status);
      expect(hidden.message.error).toEqual({ code: -32601, message: 'Unknown tool: bank.lookup' });
      expect(missing.message.error).toEqual({ code: -32601, message: 'Unknown tool: bank.lookuq' });
      expect(calls()).toBe(before);
      const refused = await stack.audit('principal=bob&type=ToolCallRefused', 2);
      expect(refused.map((e) => e.outcome)).toEqual(['refused:unknown_tool', 'refused:unknown_tool']);
    });

    it('returns argument errors as an isError result with every path', async () => {
      const before = calls();
      const bad = { from: '', amount: 0, currency: 'XYZ', extra: true };
      const answer = await send(TELLER, 'tools/call', { name: 'bank.transfer', arguments: bad });
      expect(answer.message.error).toBeUndefined();
      const result = answer.message.result as { isError: boolean; _meta: Record<string, Array<{ path: string }>> };
      expect(result.isError).toBe(true);
      expect(result._meta['io.estate/validation'].length).toBeGreaterThanOrEqual(4);
      expect(calls()).toBe(before);
    });
  });

  describe('destructive calls: confirmation as input_required', () => {
    const args = { name: 'bank.release', arguments: { reference: 'PMT-77' } };
    const released = () => stack.bank.stats().calls['release'] ?? 0;

    it('asks with input_required, runs on a retry that carries the state and accept, and refuses a forged or rebound state', async () => {
      const before = released();
      const asked = await send(TELLER, 'tools/call', args, { capabilities: { elicitation: {} } });
      expect(asked.status).toBe(200);
      const result = asked.message.result as { resultType: string; inputRequests: Record<string, { method: string; params: { message: string } }>; requestState: string };
      expect(result.resultType).toBe('input_required');
      const [key] = Object.keys(result.inputRequests);
      expect(result.inputRequests[key].method).toBe('elicitation/create');
      expect(result.inputRequests[key].params.message).toMatch(/^Confirm: Release a held payment \(bank\.release\) is destructive\. .*\nArguments: \{"reference":"PMT-77"\}$/s);
      expect(released()).toBe(before);

      const forged = await send(TELLER, 'tools/call', { ...args, requestState: `${result.requestState}x`, inputResponses: { [key]: { action: 'accept', content: {} } } }, { capabilities: { elicitation: {} } });
      expect(forged.message.error).toMatchObject({ code: -32602, message: expect.stringContaining('requestState') });
      const otherArgs = { name: 'bank.release', arguments: { reference: 'PMT-78' }, requestState: result.requestState, inputResponses: { [key]: { action: 'accept', content: {} } } };
      expect((await send(TELLER, 'tools/call', otherArgs, { capabilities: { elicitation: {} } })).message.error?.code).toBe(-32602);
      expect(released()).toBe(before);

      // Every answer spends its state: the decline is given one of its own.
      const second = (await send(TELLER, 'tools/call', args, { capabilities: { elicitation: {} } })).message.result as { requestState: string };
      const declined = await send(TELLER, 'tools/call', { ...args, requestState: second.requestState, inputResponses: { [key]: { action: 'decline' } } }, { capabilities: { elicitation: {} } });
      expect(declined.message.result).toMatchObject({ isError: true, resultType: 'complete' });
      expect(released()).toBe(before);

      const confirmed = await send(TELLER, 'tools/call', { ...args, requestState: result.requestState, inputResponses: { [key]: { action: 'accept', content: {} } } }, { capabilities: { elicitation: {} } });
      expect(confirmed.message.result).toMatchObject({ resultType: 'complete', structuredContent: { reference: 'PMT-77', status: 'released' } });
      expect(released()).toBe(before + 1);
      const replayed = await send(TELLER, 'tools/call', { ...args, requestState: result.requestState, inputResponses: { [key]: { action: 'accept', content: {} } } }, { capabilities: { elicitation: {} } });
      expect(replayed.message.error).toMatchObject({ code: -32602, message: expect.stringContaining('requestState') });
      expect(released()).toBe(before + 1);
    });

    it('shows every argument key in the question however long the text before it, and asks nothing about arguments it cannot show', async () => {
      const padding = 'routine cleanup of stale cache entries, nothing else; '.repeat(9);
      const asked = await send(NUKER, 'tools/call', { name: 'bank.nuke', arguments: { comment: padding, x: 'ALL-PRODUCTION-DATA' } }, { capabilities: { elicitation: {} } });
      const result = asked.message.result as { resultType: string; inputRequests: Record<string, { params: { message: string } }> };
      expect(result.resultType).toBe('input_required');
      expect(Object.values(result.inputRequests).map((request) => request.params.message)).toEqual([
        `Confirm: Nuke (bank.nuke) is destructive. Deletes what x names. Cannot be undone.\nArguments: {"comment":"${padding}","x":"ALL-PRODUCTION-DATA"}`,
      ]);

      const hidden = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`k${i}`, '\u200b']));
      const unshowable = await send(NUKER, 'tools/call', { name: 'bank.nuke', arguments: { ...hidden, x: 'ALL-PRODUCTION-DATA' } }, { capabilities: { elicitation: {} } });
      expect(unshowable.message.result).toMatchObject({
        resultType: 'complete', isError: true, content: [{ text: expect.stringContaining('its arguments cannot be shown in full to the person who must confirm them') }],
      });
    });

    it('accepts the state on another edge copy holding the same ESTATE_REQUEST_STATE_KEY, and not on one with another key', async () => {
      const [twin, stranger] = [await stack.startEdge({ ESTATE_REQUEST_STATE_KEY: 'k'.repeat(40) }), await stack.startEdge({ ESTATE_REQUEST_STATE_KEY: 'z'.repeat(40) })];
      try {
        const copyArgs = { name: 'bank.release', arguments: { reference: 'PMT-79' } };
        const asked = (await send(TELLER, 'tools/call', copyArgs, { capabilities: { elicitation: {} } })).message.result as { inputRequests: Record<string, unknown>; requestState: string };
        const [key] = Object.keys(asked.inputRequests);
        const retry = { ...copyArgs, requestState: asked.requestState, inputResponses: { [key]: { action: 'accept', content: {} } } };
        const before = released();
        const elsewhere = await send(TELLER, 'tools/call', retry, { capabilities: { elicitation: {} }, url: stranger.mcpUrl });
        expect(elsewhere.message.error?.code).toBe(-32602);
        expect(released()).toBe(before);
        const onTwin = await send(TELLER, 'tools/call', retry, { capabilities: { elicitation: {} }, url: twin.mcpUrl });
        expect(onTwin.message.result).toMatchObject({ structuredContent: { reference: 'PMT-79', status: 'released' } });
        expect(released()).toBe(before + 1);
      } finally {
        await twin.stop();
        await stranger.stop();
      }
    });

    it('hands a client without the elicitation capability a confirmation token, as for sessions', async () => {
      const answer = await send(TELLER, 'tools/call', args);
      expect(answer.message.result).toMatchObject({ isError: true, resultType: 'complete', _meta: { 'io.estate/confirmation': { token: expect.any(String) } } });
    });
  });

  describe('subscriptions/listen', () => {
    it('acknowledges the filter first, then sends tools/list_changed only to principals whose list changed', async () => {
      const alice = await listen(ALICE, 'a-1');
      const bob = await listen(BOB, 'b-1');
      try {
        expect(alice.status).toBe(200);
        expect(alice.headers['content-type']).toMatch(/^text\/event-stream/);
        const ack = JSON.parse((await alice.waitFor(() => true)).data);
        expect(ack).toMatchObject({ method: 'notifications/subscriptions/acknowledged', params: { notifications: { toolsListChanged: true }, _meta: { 'io.modelcontextprotocol/subscriptionId': 'a-1' } } });
        expect(ack.params.notifications.promptsListChanged).toBe(true);
        await bob.waitFor((e) => e.data.includes('acknowledged'));
        await stack.publish({ ...lookup, version: '1.1.0', description: `${lookup.description} (1.1.0)` });
        const changed = JSON.parse((await alice.waitFor((e) => e.data.includes('list_changed'), 15000)).data);
        expect(changed).toEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 'a-1' } } });
        // Bob cannot see bank.lookup: give his stream the time Alice's needed, then check it heard nothing.
        await new Promise((resolve) => setTimeout(resolve, 1000));
        expect(bob.events.filter((e) => e.data.includes('list_changed'))).toEqual([]);
        const listed = await send(ALICE, 'tools/list');
        expect((listed.message.result?.['tools'] as Array<{ description: string }>)[0].description).toContain('1.1.0');
      } finally {
        alice.close();
        bob.close();
      }
      await waitFor(async () => (alice.closed() && bob.closed() ? true : undefined), 'streams to close');
    });

    it('ends an open stream with the answer to its listen request when the edge shuts down', async () => {
      const second = await stack.startEdge();
      const stream = await listen(ALICE, 'bye', second.mcpUrl);
      await stream.waitFor((e) => e.data.includes('acknowledged'));
      await second.stop();
      const closing = JSON.parse((await stream.waitFor((e) => e.data.includes('"result"'))).data);
      expect(closing).toEqual({ jsonrpc: '2.0', id: 'bye', result: expect.objectContaining({ resultType: 'complete', _meta: expect.objectContaining({ 'io.modelcontextprotocol/subscriptionId': 'bye' }) }) });
      await waitFor(async () => (stream.closed() ? true : undefined), 'the stream to end');
    });

    it('refuses a listen request without a filter with -32602', async () => {
      const answer = await send(ALICE, 'subscriptions/listen', {});
      expect(answer.status).toBe(400);
      expect(answer.message.error).toMatchObject({ code: -32602, message: expect.stringContaining('params.notifications') });
    });
  });

  /** A subscriptions/listen POST whose SSE answer is read as it arrives. */
  async function listen(claims: Claims, id: string, url = stack.mcpUrl) {
    const params = { notifications: { toolsListChanged: true, promptsListChanged: true }, _meta: meta() };
    const body = JSON.stringify({ jsonrpc: '2.0', id, method: 'subscriptions/listen', params });
    const headers = { authorization: `Bearer ${await token(claims)}`, 'content-type': 'application/json', accept: ACCEPT_BOTH, ...mirroredHeaders('subscriptions/listen', params) };
    return openStream(url, headers, body);
  }
});
