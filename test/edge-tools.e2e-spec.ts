import { request } from 'node:http';
import path from 'node:path';
import { bankSpecs } from '../examples/bank/bank.specs';
import { startBankServer, type BankServerHandle } from '../examples/bank/bank.server';
import type { ToolSpec } from '@estate/contracts';
import { connect, http, token, waitFor, type McpSession } from './support/estate.harness';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { freePort, REPO_ROOT } from './support/infra';
import { rawSession, rpc, startToolsStack, type ToolsStack } from './support/edge-tools.fixture';
import { ACCEPT_BOTH, mirroredHeaders, raw, RawSession } from './support/edge-wire';

const ALICE = { sub: 'alice', scope: 'bank:read', clearance: 'internal' };
const BOB = { sub: 'bob', scope: 'crm:read', clearance: 'internal' };
const TELLER = { sub: 'teller', scope: 'bank:read bank:write bank:release', clearance: 'confidential', tenant: 'north' };

const [lookup, transfer, release] = bankSpecs('bank');
const memo = { type: 'string', maxLength: 140 };
const lookup11: ToolSpec = { ...lookup, version: '1.1.0', inputSchema: { ...lookup.inputSchema, properties: { ...(lookup.inputSchema.properties as object), memo } } };
const northOnly: ToolSpec = { ...lookup, name: 'bank.branch_lookup', tenants: ['north'], description: 'Looks up a payment at the north branch.' };

/** A POST whose answer is not awaited: `ended` resolves when the edge finishes the response; `drop` closes the connection. */
function pendingPost(url: string, headers: Record<string, string>, body: unknown): { ended: Promise<string>; drop: () => void } {
  const req = request(url, { method: 'POST', headers });
  const ended = new Promise<string>((resolve, reject) => {
    req.on('response', (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      res.on('end', () => resolve(text));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
  ended.catch(() => undefined);
  req.end(JSON.stringify(body));
  return { ended, drop: () => req.destroy() };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function rpcError(run: () => Promise<unknown>) {
  try {
    await run();
  } catch (error) {
    const e = error as { code: number; message: string; data?: unknown };
    return { code: e.code, message: e.message, data: e.data };
  }
  throw new Error('expected a JSON-RPC error');
}

describe('edge tools: listing, the call pipeline and upstream behaviour (real Kafka, PostgreSQL, SDK client)', () => {
  let stack: ToolsStack;
  const sessions: McpSession[] = [];
  const open = async (claims: typeof ALICE) => {
    const s = await connect(stack.mcpUrl, await token(claims));
    sessions.push(s);
    return s;
  };
  const calls = () => stack.bank.stats().total;

  beforeAll(async () => {
    stack = await startToolsStack({ ESTATE_UPSTREAM_TIMEOUT_MS: '1500' });
    for (const spec of [lookup, lookup11, transfer, release, northOnly]) await stack.publish(spec);
  }, 90000);

  const stops: Array<() => Promise<void>> = [];

  afterAll(async () => {
    for (const s of sessions) await s.close().catch(() => undefined);
    await stack?.stop();
    for (const stop of stops) await stop().catch(() => undefined);
  });

  it('lists only what the principal may see, newest version, sorted, exactly as published', async () => {
    const alice = await open(ALICE);
    const teller = await open(TELLER);
    const bob = await open(BOB);
    const seen = (await alice.client.listTools()).tools;
    expect(seen.map((t) => t.name)).toEqual(['bank.lookup']);
    expect(seen[0].inputSchema).toEqual(lookup11.inputSchema);
    expect(seen[0].description).toBe(lookup11.description);
    expect((await teller.client.listTools()).tools.map((t) => t.name)).toEqual(['bank.branch_lookup', 'bank.lookup', 'bank.release', 'bank.transfer']);
    expect((await bob.client.listTools()).tools).toEqual([]);
    // Governance fields never reach an agent.
    expect(Object.keys(seen[0]).sort()).toEqual(['annotations', 'description', 'inputSchema', 'name', 'title']);
  });

  it('honours pins from initialize and from the request; deprecated by a pin that admits no active version; retired never', async () => {
    const bearer = await token(ALICE);
    const pinned = await rawSession(stack.mcpUrl, bearer, '2025-06-18', { 'io.estate/pins': { 'bank.lookup': '1.0.0' } });
    const listed = async () => ((await pinned.request('tools/list', {})).message.result as { tools: Array<{ inputSchema: unknown }> }).tools;
    expect((await listed())[0].inputSchema).toEqual(lookup.inputSchema);
    const alice = await open(ALICE);
    const perRequest = await alice.client.listTools({ _meta: { 'io.estate/pins': { 'bank.lookup': '~1.0.0' } } });
    expect(perRequest.tools[0].inputSchema).toEqual(lookup.inputSchema);

    expect((await stack.lifecycle('bank.lookup', '1.0.0', 'deprecate')).status).toBe(200);
    await waitFor(async () => (stack.edge.replica.get('bank.lookup')?.versions.find((v) => v.version === '1.0.0')?.status === 'deprecated' ? true : undefined), 'deprecation at the edge');
    expect((await listed())[0].inputSchema).toEqual(lookup.inputSchema);
    // ~1.0.0 admits no active version now (1.1.0 is outside it): the deprecated 1.0.0, its migration window.
    const ranged = await alice.client.listTools({ _meta: { 'io.estate/pins': { 'bank.lookup': '~1.0.0' } } });
    expect(ranged.tools.map((t) => t.inputSchema)).toEqual([lookup.inputSchema]);
    const called = await pinned.request('tools/call', { name: 'bank.lookup', arguments: { reference: 'PMT-7' } });
    expect(called.message.result).toMatchObject({ structuredContent: { reference: 'PMT-7' } });
    const pinnedCall = await stack.audit('principal=alice&type=ToolCallCompleted&version=1.0.0', 1);
    expect(pinnedCall[0]).toMatchObject({ tool: 'bank.lookup', version: '1.0.0', outcome: 'ok' });

    expect((await stack.lifecycle('bank.lookup', '1.0.0', 'retire')).status).toBe(200);
    await waitFor(async () => ((await listed()).length === 0 ? true : undefined), 'the retired version gone from the pinned list');
    expect((await alice.client.listTools({ _meta: { 'io.estate/pins': { 'bank.lookup': '~1.0.0' } } })).tools).toEqual([]);
    expect((await alice.client.listTools()).tools.map((t) => t.name)).toEqual(['bank.lookup']);
  });

  it('refuses a cursor it never issued with -32602', async () => {
    const alice = await open(ALICE);
    const error = await rpcError(() => alice.client.listTools({ cursor: 'not-a-cursor' }));
    expect(error.code).toBe(-32602);
  });

  it('answers params of the wrong shape with -32602 an SDK client receives as an MCP error, not a failed transport', async () => {
    const alice = await open(ALICE);
    for (const params of [{ name: 5 }, { name: 'bank.lookup', arguments: [1] }]) {
      const error = await rpcError(() => alice.client.request({ method: 'tools/call', params: params as never }, CallToolResultSchema));
      expect(error.code).toBe(-32602);
    }
    // The session still works after both.
    expect((await alice.client.listTools()).tools.length).toBeGreaterThan(0);
  });

  it('answers a missing tool and a tool the caller may not see identically, and reaches no upstream', async () => {
    const bearer = await token(BOB);
    const bob = await rawSession(stack.mcpUrl, bearer, '2025-11-25');
    const before = calls();
    const hidden = await bob.request('tools/call', { name: 'bank.lookup', arguments: { reference: 'PMT-1' } });
    const missing = await bob.request('tools/call', { name: 'bank.lookuq', arguments: { reference: 'PMT-1' } });
    expect(hidden.status).toBe(missing.status);
    expect(hidden.message.error).toEqual({ code: -32601, message: 'Unknown tool: bank.lookup' });
    expect(missing.message.error).toEqual({ code: -32601, message: 'Unknown tool: bank.lookuq' });
    expect(calls()).toBe(before);
    const refused = await stack.audit('principal=bob&type=ToolCallRefused', 2);
    expect(refused.map((e) => e.outcome)).toEqual(['refused:unknown_tool', 'refused:unknown_tool']);
  });

  it('returns every validation error, sorted with paths: -32602 up to 2025-06-18, an isError result on 2025-11-25', async () => {
    const before = calls();
    const bad = { from: '', amount: 0, currency: 'XYZ', extra: true };
    const old = await rawSession(stack.mcpUrl, await token(TELLER), '2025-06-18');
    const answer = await old.request('tools/call', { name: 'bank.transfer', arguments: bad });
    const error = answer.message.error as { code: number; data: { errors: Array<{ path: string }> } };
    expect(error.code).toBe(-32602);
    const paths = error.data.errors.map((e) => e.path);
    expect(paths.length).toBeGreaterThanOrEqual(4);
    expect([...paths].sort()).toEqual(paths);

    const teller = await open(TELLER);
    const result = await teller.client.callTool({ name: 'bank.transfer', arguments: bad });
    expect(result.isError).toBe(true);
    expect(result._meta?.['io.estate/validation']).toEqual(error.data.errors);
    const text = (result.content as Array<{ text: string }>)[0].text;
    for (const p of paths) expect(text).toContain(p);
    expect(calls()).toBe(before);
  });

  it('calls the upstream for a valid request and records it', async () => {
    const alice = await open(ALICE);
    const before = calls();
    const result = await alice.client.callTool({ name: 'bank.lookup', arguments: { reference: 'PMT-771' } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ reference: 'PMT-771' });
    expect(calls()).toBe(before + 1);
    const done = await stack.audit('principal=alice&type=ToolCallCompleted&version=1.1.0', 1);
    expect(done[0]).toMatchObject({ tool: 'bank.lookup', version: '1.1.0', outcome: 'ok' });
  });

  it('turns an upstream timeout, a JSON-RPC error and a refused connection into isError results', async () => {
    const teller = await open(TELLER);
    const args = { from: 'A', to: 'B', amount: 5, currency: 'EUR' };
    stack.faults.delay('transfer', 4000);
    const slow = await teller.client.callTool({ name: 'bank.transfer', arguments: args });
    stack.faults.clear();
    expect(slow.isError).toBe(true);
    expect((slow.content as Array<{ text: string }>)[0].text).toContain('did not answer within 1500 ms');

    stack.faults.failAfterForward('transfer', 1, -32603, 'ledger offline');
    const failed = await teller.client.callTool({ name: 'bank.transfer', arguments: args });
    expect(failed.isError).toBe(true);
    // The upstream's own error text stays in the call record; the model gets the estate's words and a reference.
    expect((failed.content as Array<{ text: string }>)[0].text).toMatch(/the upstream server failed \(ref [0-9a-f]{12}\)/);
    expect((failed.content as Array<{ text: string }>)[0].text).not.toContain('ledger offline');

    const port = await freePort();
    await stack.register({ name: 'closed', url: `http://127.0.0.1:${port}/mcp` });
    await stack.publish({ ...lookup, name: 'closed.lookup', upstream: { server: 'closed', tool: 'lookup' } });
    const refused = await teller.client.callTool({ name: 'closed.lookup', arguments: { reference: 'PMT-1' } });
    expect(refused.isError).toBe(true);
    expect((refused.content as Array<{ text: string }>)[0].text).toContain('could not be reached');
  });

  describe('a call its caller gives up on (the upstream takes 1200 ms)', () => {
    const slowLookup = { name: 'bank.lookup', arguments: { reference: 'PMT-4242' } };
    beforeEach(() => stack.faults.delay('lookup', 1200));
    afterEach(() => stack.faults.clear());

    /** The one ToolCallCompleted of `sub` (found by the outcome filter too), with its recorded detail and duration. */
    const completed = async (sub: string) => {
      const [entry] = await stack.audit(`principal=${sub}&type=ToolCallCompleted`, 1);
      expect(await stack.audit(`principal=${sub}&outcome=cancelled`, 1)).toHaveLength(1);
      const { detail, durationMs } = entry.data as { detail?: string; durationMs: number };
      return { tool: entry.tool, outcome: entry.outcome, detail, durationMs };
    };

    it('records notifications/cancelled as cancelled by the client, and ends the POST stream without an answer', async () => {
      const sub = 'cancel-notified';
      const session = await RawSession.open(stack.mcpUrl, { sub, scope: 'bank:read', clearance: 'internal' });
      const headers = session.headers({ 'mcp-protocol-version': '2025-11-25' });
      const call = pendingPost(stack.mcpUrl, headers, { jsonrpc: '2.0', id: 7, method: 'tools/call', params: slowLookup });
      await pause(300);
      const cancel = await raw(stack.mcpUrl, { headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7, reason: 'user gave up' } }) });
      expect(cancel.status).toBe(202);
      const ended = await Promise.race([call.ended, pause(800).then(() => 'still open')]);
      expect(ended).not.toBe('still open');
      expect(ended).not.toContain('"id":7');
      expect(await completed(sub)).toMatchObject({ tool: 'bank.lookup', outcome: 'cancelled', detail: 'the client cancelled the call (notifications/cancelled): "user gave up"' });
    });

    it("records an SDK client's aborted call as cancelled, not as an upstream timeout", async () => {
      const sub = 'cancel-sdk';
      const session = await open({ sub, scope: 'bank:read', clearance: 'internal' });
      const abort = new AbortController();
      setTimeout(() => abort.abort('no longer needed'), 300);
      await expect(session.client.callTool(slowLookup, undefined, { signal: abort.signal })).rejects.toBeDefined();
      const entry = await completed(sub);
      expect(entry).toMatchObject({ outcome: 'cancelled', detail: expect.stringContaining('the client cancelled the call (notifications/cancelled)') });
      expect(entry.durationMs).toBeLessThan(1200);
    });

    it('records a call cut short by DELETE of its session as cancelled by the session deletion', async () => {
      const sub = 'cancel-deleted';
      const session = await RawSession.open(stack.mcpUrl, { sub, scope: 'bank:read', clearance: 'internal' });
      const headers = session.headers({ 'mcp-protocol-version': '2025-11-25' });
      const call = pendingPost(stack.mcpUrl, headers, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: slowLookup });
      await pause(300);
      expect((await raw(stack.mcpUrl, { method: 'DELETE', headers })).status).toBe(200);
      await Promise.race([call.ended, pause(2000)]);
      expect(await completed(sub)).toMatchObject({ outcome: 'cancelled', detail: 'the client deleted its session (DELETE) during the call' });
    });

    it('records a 2026-07-28 call whose connection the client closed as cancelled by the closed connection', async () => {
      const sub = 'cancel-2026';
      const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'cancel', version: '1' } };
      const params = { ...slowLookup, _meta: meta };
      const headers = { authorization: `Bearer ${await token({ sub, scope: 'bank:read', clearance: 'internal' })}`, 'content-type': 'application/json', accept: ACCEPT_BOTH, ...mirroredHeaders('tools/call', params) };
      const call = pendingPost(stack.mcpUrl, headers, { jsonrpc: '2.0', id: 1, method: 'tools/call', params });
      await pause(300);
      call.drop();
      expect(await completed(sub)).toMatchObject({ outcome: 'cancelled', detail: 'the client closed the connection the call came on' });
    });
  });

  it('reconnects after the upstream restarts on the same port', async () => {
    const alice = await open(ALICE);
    const port = stack.bank.port;
    await stack.bank.close();
    const down = await alice.client.callTool({ name: 'bank.lookup', arguments: { reference: 'PMT-5' } });
    expect(down.isError).toBe(true);
    const restarted: BankServerHandle = await startBankServer({ port });
    // The restarted bank stays the stack's upstream for the tests after this one.
    stack.bank = restarted;
    stops.push(() => restarted.close());
    const up = await waitFor(async () => {
      const r = await alice.client.callTool({ name: 'bank.lookup', arguments: { reference: 'PMT-5' } });
      return r.isError ? undefined : r;
    }, 'a call through the reconnected upstream');
    expect(up.structuredContent).toMatchObject({ reference: 'PMT-5' });
    expect(restarted.stats().calls.lookup).toBeGreaterThanOrEqual(1);
  });

  it('spawns a stdio upstream and calls it', async () => {
    await stack.register({ name: 'bankio', transport: 'stdio', command: 'node', args: [path.join(REPO_ROOT, 'dist/examples/bank/main.js'), '--stdio'] });
    await stack.publish(bankSpecs('bankio')[0]);
    const alice = await open(ALICE);
    const result = await alice.client.callTool({ name: 'bankio.lookup', arguments: { reference: 'PMT-42' } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ reference: 'PMT-42' });
  });

  it('keeps refusals away from the upstream and -32602 away from its own failures', async () => {
    const bearer = await token(ALICE);
    const raw = await rawSession(stack.mcpUrl, bearer, '2025-11-25');
    const before = calls();
    const empty = await raw.request('tools/call', { name: '', arguments: {} });
    expect(empty.message.error).toMatchObject({ code: -32602 });
    const arrayArgs = await raw.request('tools/call', { name: 'bank.lookup', arguments: [1] });
    expect(arrayArgs.message.error).toMatchObject({ code: -32602 });
    expect(calls()).toBe(before);
    // Array arguments are refused at the door (the SDK's schema would answer -32603), the empty name in the pipeline: both are recorded.
    const refused = await stack.audit('principal=alice&type=ToolCallRefused', 2);
    expect(refused.map((e) => e.outcome)).toEqual(['refused:invalid_params', 'refused:invalid_params']);
    expect((await rpc(stack.mcpUrl, bearer, { jsonrpc: '2.0', id: 99, method: 'tools/list' }, raw.session)).status).toBe(200);
  });

  it('serves pre-releases to pins alone: unpinned agents get the newest stable version or nothing, and a release follows its pre-release', async () => {
    const name = 'bank.lookup_preview';
    const at = (version: string, title: string, extra: Partial<ToolSpec> = {}): ToolSpec => ({ ...lookup, name, version, title, ...extra });
    await stack.publish(at('1.0.0', 'Look up a payment'));
    await stack.publish(at('2.0.0-rc.1', 'Look up a payment (preview)'));
    const alice = await open(ALICE);
    const listed = async (pin?: string) =>
      (await alice.client.listTools(pin ? { _meta: { 'io.estate/pins': { [name]: pin } } } : undefined)).tools.find((t) => t.name === name);
    const latest = async () => ((await http('GET', `${stack.registryUrl}/v1/tools`, stack.admin)).body.tools as Array<{ name: string; latest: string }>).find((t) => t.name === name)?.latest;

    expect((await listed())?.title).toBe('Look up a payment');
    expect((await listed('^2.0.0-rc.1'))?.title).toBe('Look up a payment (preview)');
    expect(await latest()).toBe('1.0.0');
    await alice.client.callTool({ name, arguments: { reference: 'PMT-11' } });
    await alice.client.callTool({ name, arguments: { reference: 'PMT-12' }, _meta: { 'io.estate/pins': { [name]: '2.0.0-rc.1' } } });
    await stack.audit(`tool=${name}&version=1.0.0&type=ToolCallCompleted`, 1);
    await stack.audit(`tool=${name}&version=2.0.0-rc.1&type=ToolCallCompleted`, 1);

    // With the only stable version quarantined, unpinned agents are not offered the pre-release.
    expect((await stack.lifecycle(name, '1.0.0', 'quarantine')).status).toBe(200);
    await waitFor(async () => (stack.edge.replica.get(name)?.versions.find((v) => v.version === '1.0.0')?.quarantined ? true : undefined), 'the quarantine at the edge');
    expect(await listed()).toBeUndefined();
    expect(await rpcError(() => alice.client.callTool({ name, arguments: { reference: 'PMT-13' } }))).toMatchObject({ code: -32601 });
    expect((await listed('2.0.0-rc.1'))?.title).toBe('Look up a payment (preview)');

    // 2.0.0 is measured against 1.0.0, not against its pre-release: a contract change is fine under the major it declares.
    const release = at('2.0.0', 'Look up a payment by reference', { inputSchema: lookup11.inputSchema });
    const published = await http('POST', `${stack.registryUrl}/v1/tools`, stack.admin, release);
    expect(published).toMatchObject({ status: 201, body: { version: '2.0.0', bump: 'minor' } });
    await waitFor(async () => (stack.edge.replica.get(name)?.versions.some((v) => v.version === '2.0.0') ? true : undefined), 'the release at the edge');
    expect(await listed()).toMatchObject({ title: 'Look up a payment by reference', inputSchema: lookup11.inputSchema });
    expect(await latest()).toBe('2.0.0');
  });

  it('counts a call in flight as activity: the idle clock starts when the call ends, not when it came', async () => {
    const quick = await stack.startEdge({ ESTATE_SESSION_IDLE_SECONDS: '6', ESTATE_UPSTREAM_TIMEOUT_MS: '20000' });
    stack.faults.delay('lookup', 9000);
    try {
      const session = await rawSession(quick.mcpUrl, await token(ALICE), '2025-11-25');
      const before = calls();
      const started = Date.now();
      const answer = await session.request('tools/call', { name: 'bank.lookup', arguments: { reference: 'PMT-9' } });
      expect(Date.now() - started).toBeGreaterThanOrEqual(8500);
      expect(answer.message.result).toMatchObject({ structuredContent: { reference: 'PMT-9' } });
      // The slow call reached the upstream (a retry may have followed it there).
      expect(calls()).toBeGreaterThan(before);
      // Nine seconds after its last request arrived, the session lives on: its call ended just now.
      expect((await session.request('ping')).message).toMatchObject({ result: {} });
      expect(quick.sessions.size).toBe(1);
    } finally {
      stack.faults.delay('lookup', 0);
    }
  }, 30000);
});
