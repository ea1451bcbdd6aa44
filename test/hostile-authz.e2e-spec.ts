import { SignJWT } from 'jose';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { TokenClaims } from '@estate/platform';
import { bankSpecs } from '../examples/bank/bank.specs';
import { ADMIN, connect, http, TEST_SECRET, token, waitFor, type McpSession } from './support/estate.harness';
import { startToolsStack, type ToolsStack } from './support/edge-tools.fixture';
import { ACCEPT_BOTH, raw } from './support/edge-wire';

/*
 * Findings of an outside attack on `npm start` (issue 8, items 2, 3, 10, 11 and 12), one describe
 * each: every test here failed before the fix.
 */

const [lookup, transfer, release] = bankSpecs('bank');
const RATE = 10;
const MAX_SESSIONS = 3;
const text = (r: CallToolResult) => (r.content as Array<{ text: string }>)[0].text;
const initialize = (id = 0) => JSON.stringify({
  jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'hostile', version: '1' } },
});

interface RpcError {
  code: number;
  message: string;
}

async function rpcError(run: () => Promise<unknown>): Promise<RpcError> {
  try {
    await run();
  } catch (error) {
    const { code, message } = error as RpcError;
    return { code, message };
  }
  throw new Error('the request succeeded but was expected to fail');
}

/** An official SDK client whose bearer token can be swapped between requests of one session. */
async function swappableSession(url: string, first: string): Promise<{ client: Client; listChanged: number[]; present(bearer: string): void }> {
  let bearer = first;
  const client = new Client({ name: 'hostile-authz', version: '1.0.0' });
  const listChanged: number[] = [];
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => void listChanged.push(Date.now()));
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    fetch: (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set('authorization', `Bearer ${bearer}`);
      return fetch(input, { ...init, headers });
    },
  });
  await client.connect(transport);
  return { client, listChanged, present: (next) => void (bearer = next) };
}

describe('hostile agents (issue 8): authorization holds on every request (real Kafka, PostgreSQL, SDK client)', () => {
  let stack: ToolsStack;
  const closers: Array<() => Promise<void>> = [];
  const open = async (claims: TokenClaims): Promise<McpSession> => {
    const session = await connect(stack.mcpUrl, await token(claims));
    closers.push(session.close);
    return session;
  };
  const get = async (url: string, bearer: string) => {
    const response = await fetch(url, { headers: { authorization: `Bearer ${bearer}` } });
    return { status: response.status, text: await response.text() };
  };

  beforeAll(async () => {
    stack = await startToolsStack({ ESTATE_RATE_PER_PRINCIPAL: String(RATE), ESTATE_MAX_SESSIONS_PER_PRINCIPAL: String(MAX_SESSIONS) });
    for (const spec of [lookup, transfer, release]) await stack.publish(spec);
  }, 120000);

  afterAll(async () => {
    for (const close of closers) await close().catch(() => undefined);
    await stack?.stop();
  });

  describe('2: any token could enumerate the estate through the registry', () => {
    it('shows a token without rights nothing, and a hidden name exactly like a missing one', async () => {
      const nobody = await token({ sub: 'nobody' });
      expect(await get(`${stack.registryUrl}/v1/tools`, nobody)).toEqual({ status: 200, text: '{"tools":[]}' });
      for (const [hidden, missing] of [
        ['/v1/tools/bank.transfer', '/v1/tools/bank.transfex'],
        ['/v1/tools/bank.transfer/versions/1.0.0', '/v1/tools/bank.transfex/versions/1.0.0'],
        ['/v1/servers/bank', '/v1/servers/banx'],
      ]) {
        const answer = await get(`${stack.registryUrl}${hidden}`, nobody);
        expect(answer.status).toBe(404);
        const absent = await get(`${stack.registryUrl}${missing}`, nobody);
        expect(answer.text).toBe(absent.text.replace(/transfex|banx/, (m) => (m === 'banx' ? 'bank' : 'transfer')));
      }
    });

    it('shows an agent only what it could discover, without governance fields or the upstream', async () => {
      const agent = await token({ sub: 'reader', scope: 'bank:read', clearance: 'internal' });
      const list = await http('GET', `${stack.registryUrl}/v1/tools`, agent);
      expect(list.body).toEqual({ tools: [{ name: 'bank.lookup', latest: '1.0.0', versions: { '1.0.0': 'active' } }] });
      const tool = await get(`${stack.registryUrl}/v1/tools/bank.lookup`, agent);
      expect(tool.status).toBe(200);
      expect(tool.text).not.toMatch(/requiredScopes|tenants|dataClassification|owner|payments-team|upstream|127\.0\.0\.1/);
      expect((await get(`${stack.registryUrl}/v1/servers/bank`, agent)).status).toBe(404);
      // Publishers and admins still read everything.
      expect((await http('GET', `${stack.registryUrl}/v1/servers/bank`, stack.admin)).body).toMatchObject({ url: stack.faults.url });
      expect((await http('GET', `${stack.registryUrl}/v1/tools`, stack.admin)).body.tools).toHaveLength(3);
    });
  });

  describe('3: rights were frozen when the session opened', () => {
    const TELLER = { sub: 'teller-3', scope: 'bank:read bank:write', clearance: 'confidential' };
    const NARROWED = { sub: 'teller-3', clearance: 'confidential' };

    it('judges each request by the token it carries: a narrower token loses the tool at once', async () => {
      const session = await swappableSession(stack.mcpUrl, await token(TELLER));
      closers.push(() => session.client.close());
      expect((await session.client.listTools()).tools.map((t) => t.name)).toEqual(['bank.lookup', 'bank.transfer']);
      const args = { from: 'ACC-1', to: 'ACC-2', amount: 100, currency: 'EUR' };
      const before = stack.bank.stats().calls.transfer ?? 0;

      session.present(await token(NARROWED));
      const refused = await rpcError(() => session.client.callTool({ name: 'bank.transfer', arguments: args }));
      const missing = await rpcError(() => session.client.callTool({ name: 'bank.transfex', arguments: args }));
      expect(refused).toEqual({ code: -32601, message: expect.stringContaining('Unknown tool: bank.transfer') });
      expect({ ...missing, message: missing.message.replace('transfex', 'transfer') }).toEqual(refused);
      expect((await session.client.listTools()).tools).toEqual([]);
      expect(stack.bank.stats().calls.transfer ?? 0).toBe(before);

      // The full token works again on the same session; another subject's token finds no session.
      session.present(await token(TELLER));
      expect((await session.client.callTool({ name: 'bank.transfer', arguments: args })).isError).toBeFalsy();
      session.present(await token({ ...TELLER, sub: 'teller-4' }));
      await expect(session.client.listTools()).rejects.toThrow(/404|Session not found/);
    });

    it('decides list_changed by the rights of the session\'s most recent request', async () => {
      const narrowed = await swappableSession(stack.mcpUrl, await token({ ...TELLER, sub: 'teller-5' }));
      closers.push(() => narrowed.client.close());
      const control = await open({ ...TELLER, sub: 'teller-6' });
      await waitFor(async () => ((await narrowed.client.listTools()).tools.length === 2 ? true : undefined), 'teller-5 to list both tools');
      narrowed.present(await token({ ...NARROWED, sub: 'teller-5' }));
      expect((await narrowed.client.listTools()).tools).toEqual([]);

      await stack.publish({ ...transfer, version: '1.1.0', title: 'Move money' });
      await waitFor(async () => (control.listChanged.length > 0 ? true : undefined), 'list_changed at the control session');
      await new Promise((resolve) => setTimeout(resolve, 750));
      expect(narrowed.listChanged).toEqual([]);
    });
  });

  describe('10: probes were free and budgets were keyed by subject alone', () => {
    it('meters unknown-tool and invalid-argument calls, then refuses every name alike', async () => {
      const north = await open({ sub: 'prober', tenant: 'north', scope: 'bank:read', clearance: 'internal' });
      const lookups = stack.bank.stats().calls.lookup ?? 0;
      for (let i = 0; i < RATE / 2; i += 1) {
        expect(await rpcError(() => north.client.callTool({ name: `bank.nothing${i}`, arguments: {} }))).toMatchObject({ code: -32601 });
        const invalid = (await north.client.callTool({ name: 'bank.lookup', arguments: { reference: 'nope' } })) as CallToolResult;
        expect(invalid.isError).toBe(true);
      }
      const limited: CallToolResult[] = [];
      for (const name of ['bank.ghost', 'bank.transfer', 'bank.lookup']) {
        limited.push((await north.client.callTool({ name, arguments: { reference: 'PMT-1' } })) as CallToolResult);
      }
      for (const result of limited) {
        expect(result.isError).toBe(true);
        expect(text(result)).toMatch(/^Rate limit reached for your calls\. Retry after \d+ ms\.$/);
        expect(Object.keys(result._meta ?? {})).toEqual(['io.estate/retryAfterMs']);
      }
      expect(stack.bank.stats().calls.lookup ?? 0).toBe(lookups);

      // The same subject in another tenant is another principal with its own budget.
      const south = await open({ sub: 'prober', tenant: 'south', scope: 'bank:read', clearance: 'internal' });
      expect((await south.client.callTool({ name: 'bank.lookup', arguments: { reference: 'PMT-1' } })).isError).toBeFalsy();
      const refused = await stack.audit('principal=prober&type=ToolCallRefused', RATE + 3);
      expect(refused.filter((e) => e.outcome === 'refused:rate_limited')).toHaveLength(3);
    });
  });

  describe('11: tokens without exp, or issued in the future, were accepted', () => {
    const key = new TextEncoder().encode(TEST_SECRET);
    const now = Math.floor(Date.now() / 1000);
    const signed = (build: (jwt: SignJWT) => SignJWT) =>
      build(new SignJWT({ scope: ADMIN.scope, clearance: ADMIN.clearance }).setProtectedHeader({ alg: 'HS256' }).setSubject(ADMIN.sub)).sign(key);

    it('refuses them with the usual 401 on all four services, and still accepts a dev token', async () => {
      const bad = {
        'no exp': await signed((jwt) => jwt.setIssuedAt()),
        'a year of life': await signed((jwt) => jwt.setIssuedAt().setExpirationTime(now + 365 * 86400)),
        'iat a year ahead': await signed((jwt) => jwt.setIssuedAt(now + 365 * 86400).setExpirationTime(now + 365 * 86400 + 3600)),
      };
      const forged = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject(ADMIN.sub).setExpirationTime('1h').sign(new TextEncoder().encode('not-the-secret-0123456789abcdef'));
      const probes: Array<[string, (bearer: string) => Promise<{ status: number; text: string; challenge: string | null }>]> = [
        ['registry', (b) => ask(`${stack.registryUrl}/v1/tools`, b)],
        ['discovery', (b) => ask(`${stack.discoveryUrl}/v1/catalog`, b)],
        ['audit', (b) => ask(`${stack.auditUrl}/v1/audit?limit=1`, b)],
        ['edge', (b) => ask(stack.mcpUrl, b, initialize())],
      ];
      const good = await token(ADMIN);
      for (const [service, probe] of probes) {
        const refusal = await probe(forged);
        expect([service, refusal.status]).toEqual([service, 401]);
        for (const [what, bearer] of Object.entries(bad)) expect([service, what, await probe(bearer)]).toEqual([service, what, refusal]);
        expect([service, (await probe(good)).status]).toEqual([service, 200]);
      }
    });

    async function ask(url: string, bearer: string, body?: string) {
      const response = body === undefined
        ? await fetch(url, { headers: { authorization: `Bearer ${bearer}` } })
        : await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json', accept: ACCEPT_BOTH }, body });
      const answer = { status: response.status, text: await response.text(), challenge: response.headers.get('www-authenticate') };
      // A successful initialize opened a session: end it so it counts against nothing.
      const session = response.headers.get('mcp-session-id');
      if (session) await fetch(url, { method: 'DELETE', headers: { authorization: `Bearer ${bearer}`, 'mcp-session-id': session } });
      return response.ok ? { ...answer, text: '', challenge: null } : answer;
    }
  });

  describe('12: one principal could open any number of sessions', () => {
    const HOARDER = { sub: 'hoarder', tenant: 'north', scope: 'bank:read', clearance: 'internal' };

    it('caps open sessions per subject and tenant with 429 and Retry-After; ending one makes room', async () => {
      const held: McpSession[] = [];
      for (let i = 0; i < MAX_SESSIONS; i += 1) held.push(await open(HOARDER));
      const bearer = await token(HOARDER);
      const headers = { authorization: `Bearer ${bearer}`, 'content-type': 'application/json', accept: ACCEPT_BOTH };
      const refused = await raw(stack.mcpUrl, { headers, body: initialize(7) });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(refused.headers['mcp-session-id']).toBeUndefined();
      expect(JSON.parse(refused.text)).toEqual({
        jsonrpc: '2.0', id: 7,
        error: { code: -32000, message: expect.stringContaining(`${MAX_SESSIONS} open sessions`), data: { limit: MAX_SESSIONS, retryAfterSeconds: Number(refused.headers['retry-after']) } },
      });
      // The sessions it holds still work.
      expect((await held[0].client.listTools()).tools.map((t) => t.name)).toEqual(['bank.lookup']);

      const otherTenant = await raw(stack.mcpUrl, { headers: { ...headers, authorization: `Bearer ${await token({ ...HOARDER, tenant: 'south' })}` }, body: initialize() });
      expect(otherTenant.status).toBe(200);

      await (held[0].client.transport as StreamableHTTPClientTransport).terminateSession();
      expect((await raw(stack.mcpUrl, { headers, body: initialize() })).status).toBe(200);
      expect((await raw(stack.mcpUrl, { headers, body: initialize() })).status).toBe(429);
    });
  });
});
