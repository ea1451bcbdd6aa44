import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, LoggingMessageNotificationSchema, type ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { MCP_META_KEY, STATELESS_PROTOCOL_VERSION, checkRequestHeaders, parseRequestMeta } from '@estate/protocol';
import { createLogger } from '@estate/platform';
import { composeEstate } from '../apps/estate/src/estate.composition';
import { startBankServer } from '../examples/bank/bank.server';
import { bankSpecs } from '../examples/bank/bank.specs';
import { ADMIN, http, token, waitFor } from './support/estate.harness';
import { testEstateEnv } from './support/estate.stack';
import { createTestDatabase } from './support/infra';
import { LOCKED_ACCOUNT, ledgerSpecs, startStateless2026Upstream, type SeenRequest, type Stateless2026Upstream } from './support/stateless-2026-upstream.server';

const ALICE = { sub: 'alice', scope: 'ledger:read bank:read', clearance: 'internal' };

interface Agent {
  client: Client;
  elicited: string[];
  logs: unknown[];
}

/** An agent on the official SDK 1.x client: the session-based revisions only. */
async function connect(mcpUrl: string, capabilities: ClientCapabilities = {}): Promise<Agent> {
  const client = new Client({ name: 'upstream-2026-e2e', version: '1.0.0' }, { capabilities });
  const agent: Agent = { client, elicited: [], logs: [] };
  client.setNotificationHandler(LoggingMessageNotificationSchema, async (n) => void agent.logs.push(n.params.data));
  if (capabilities.elicitation) {
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      agent.elicited.push(request.params.message);
      return { action: 'accept', content: { reason: 'moving banks' } };
    });
  }
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers: { authorization: `Bearer ${await token(ALICE)}` } } });
  await client.connect(transport);
  return agent;
}

const textOf = (result: unknown) => (((result as { content?: Array<{ text?: string }> }).content) ?? []).map((c) => c.text).join('');
const methodsOf = (seen: SeenRequest[]) => seen.map((r) => (r.body?.['method'] as string | undefined) ?? `${r.httpMethod} (no body)`);
const toolCalls = (seen: SeenRequest[], tool: string) => seen.filter((r) => r.body?.['method'] === 'tools/call' && (r.body['params'] as { name?: string }).name === tool);

describe('the edge speaks 2026-07-28 to upstreams that offer it and the session revisions to the others', () => {
  const logger = createLogger('e2e', 'error');
  const stops: Array<() => Promise<void>> = [];
  const agents: Agent[] = [];
  let mcpUrl: string;
  let auditUrl: string;
  let ledger: Stateless2026Upstream;
  /** A second 2026 upstream, registered with session affinity. */
  let vault: Stateless2026Upstream;
  let bankCalls: () => number;

  beforeAll(async () => {
    const db = await createTestDatabase();
    stops.push(db.drop);
    const estate = await composeEstate({ env: testEstateEnv(), databaseUrl: db.url, logger, services: ['registry', 'discovery', 'audit', 'edge'] });
    stops.push(estate.stop);
    const { registry, edge, audit } = estate;
    if (!registry || !edge || !audit) throw new Error('the estate started without its registry, audit or edge');
    mcpUrl = edge.mcpUrl;
    auditUrl = audit.url;

    ledger = await startStateless2026Upstream();
    stops.unshift(ledger.close);
    vault = await startStateless2026Upstream();
    stops.unshift(vault.close);
    const bank = await startBankServer({ port: 0, logger: createLogger('bank', 'error') });
    stops.unshift(bank.close);
    bankCalls = () => bank.stats().total;

    const admin = await token(ADMIN);
    const servers = [
      { name: 'ledger', url: ledger.url, owner: 'ledger-team', allowElicitation: true },
      { name: 'bank', url: bank.url, owner: 'payments-team' },
      { name: 'vault', url: vault.url, owner: 'ledger-team', sessionAffinity: true },
    ];
    for (const body of servers) expect((await http('POST', `${registry.url}/v1/servers`, admin, body)).status).toBe(201);
    for (const spec of [...ledgerSpecs('ledger'), ...ledgerSpecs('vault').slice(0, 1), bankSpecs('bank')[0]]) expect((await http('POST', `${registry.url}/v1/tools`, admin, spec)).status).toBe(201);

    const probe = await connect(mcpUrl);
    await waitFor(async () => ((await probe.client.listTools()).tools.length === 6 ? true : undefined), 'alice to see the six tools');
    await probe.client.close();
  }, 60000);

  afterEach(async () => {
    await Promise.allSettled(agents.splice(0).map((a) => a.client.close()));
  });

  afterAll(async () => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  });

  async function open(capabilities?: ClientCapabilities): Promise<Agent> {
    const agent = await connect(mcpUrl, capabilities);
    agents.push(agent);
    return agent;
  }

  it('calls a 2026-only upstream for a session-based agent, and that upstream sees only valid stateless requests', async () => {
    const alice = await open();
    const result = await alice.client.callTool({ name: 'ledger.balance', arguments: { account: 'ACC-7' } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ account: 'ACC-7', balance: 1200, currency: 'EUR' });
    // The revision's own members stay between the edge and the upstream.
    expect(result).not.toHaveProperty('resultType');

    const seen = ledger.seen;
    expect(methodsOf(seen)).not.toContain('initialize');
    expect(methodsOf(seen)[0]).toBe('server/discover');
    expect(seen.every((r) => r.httpMethod === 'POST')).toBe(true);
    for (const request of seen) {
      const body = request.body ?? {};
      const meta = parseRequestMeta(body['params']);
      expect(meta).toMatchObject({ ok: true, meta: { protocolVersion: STATELESS_PROTOCOL_VERSION } });
      if (!meta.ok) continue;
      expect(checkRequestHeaders(request.headers, String(body['method']), body['params'], meta.meta.protocolVersion)).toBeNull();
      expect(request.headers['mcp-protocol-version']).toBe(STATELESS_PROTOCOL_VERSION);
      expect(request.headers['mcp-method']).toBe(body['method']);
      expect(request.headers['mcp-session-id']).toBeUndefined();
    }
    const [call] = toolCalls(seen, 'balance');
    expect(call.headers['mcp-name']).toBe('balance');
    // The tool's x-mcp-header annotation, as the upstream lists it, mirrors the account into a header.
    expect(call.headers['mcp-param-account']).toBe('ACC-7');
    expect((call.body?.['params'] as { arguments: unknown }).arguments).toEqual({ account: 'ACC-7' });
    // The edge declares what it relays, so the upstream may ask for input.
    const meta = (call.body?.['params'] as { _meta: Record<string, unknown> })._meta;
    expect(meta[MCP_META_KEY.clientCapabilities]).toMatchObject({ elicitation: {} });
  });

  it('keeps calling a session-based upstream in the same estate through initialize', async () => {
    const alice = await open();
    const before = bankCalls();
    const result = await alice.client.callTool({ name: 'bank.lookup', arguments: { reference: 'PMT-771' } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ reference: 'PMT-771' });
    expect(bankCalls()).toBe(before + 1);
    // The stateless upstream was not asked anything session-like meanwhile.
    expect(methodsOf(ledger.seen)).not.toContain('initialize');
  });

  it("turns the upstream's input_required into an elicitation of the calling agent and retries with its answer", async () => {
    const alice = await open({ elicitation: {} });
    const result = await alice.client.callTool({ name: 'ledger.close-account', arguments: { account: 'ACC-9' } });
    expect(textOf(result)).not.toContain('failed');
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe('closed ACC-9: moving banks');
    expect(alice.elicited).toEqual(['Close ACC-9? Give a reason.']);

    const calls = toolCalls(ledger.seen, 'close-account');
    expect(calls).toHaveLength(2);
    const first = calls[0].body?.['params'] as Record<string, unknown>;
    const retry = calls[1].body?.['params'] as Record<string, unknown>;
    expect(first).not.toHaveProperty('inputResponses');
    expect(retry).toMatchObject({
      name: 'close-account',
      arguments: { account: 'ACC-9' },
      inputResponses: { confirm: { action: 'accept', content: { reason: 'moving banks' } } },
      requestState: expect.any(String),
    });
    expect(calls[1].headers['mcp-name']).toBe('close-account');
  });

  it('fails the call, without retrying the upstream, when the agent cannot answer the input request', async () => {
    const before = toolCalls(ledger.seen, 'close-account').length;
    const plain = await open();
    const result = await plain.client.callTool({ name: 'ledger.close-account', arguments: { account: 'ACC-10' } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('ledger.close-account failed');
    expect(toolCalls(ledger.seen, 'close-account')).toHaveLength(before + 1);
    // A read tool is retried after upstream failures, but not after this one: it would be refused again.
    const lockedBefore = toolCalls(ledger.seen, 'balance').length;
    const locked = await plain.client.callTool({ name: 'ledger.balance', arguments: { account: LOCKED_ACCOUNT } });
    expect(locked.isError).toBe(true);
    expect(toolCalls(ledger.seen, 'balance')).toHaveLength(lockedBefore + 1);
    // The refusal is the estate's, audited like a session-era upstream's elicitation refused.
    const admin = await token(ADMIN);
    const trail = (type: string) => waitFor(async () => {
      const r = await http('GET', `${auditUrl}/v1/audit?principal=alice&type=${type}`, admin);
      const entries = r.body.entries as Array<Record<string, unknown>> | undefined;
      return entries?.length === 1 ? entries : undefined;
    }, `one ${type} in the audit trail`);
    const refusedTrail = await waitFor(async () => {
      const r = await http('GET', `${auditUrl}/v1/audit?principal=alice&type=UpstreamRequestRefused`, admin);
      const entries = r.body.entries as Array<Record<string, unknown>> | undefined;
      return entries?.length === 2 ? entries : undefined;
    }, 'two refused input requests in the audit trail');
    expect(refusedTrail.map((e) => [e.tool, e.outcome]).sort()).toEqual([
      ['ledger.balance', 'refused:client_not_capable'],
      ['ledger.close-account', 'refused:client_not_capable'],
    ]);
    // The answered one of the test before, audited like a session-era upstream's elicitation.
    expect((await trail('UpstreamRequestRelayed')).map((e) => [e.tool, e.outcome])).toEqual([['ledger.close-account', 'answered']]);
  });

  it('relays progress and log messages of a streamed answer; the log level rides in _meta, not in logging/setLevel', async () => {
    const alice = await open();
    await alice.client.setLoggingLevel('debug');
    const progress: number[] = [];
    const counted = await alice.client.callTool({ name: 'ledger.count', arguments: { to: 3 } }, undefined, { onprogress: (p) => progress.push(p.progress) });
    expect(textOf(counted)).toBe('counted to 3');
    expect(progress).toEqual([1, 2, 3]);
    await waitFor(async () => (alice.logs.length >= 3 ? true : undefined), 'the debug steps at the agent');
    expect(alice.logs).toEqual(['step 1 of 3', 'step 2 of 3', 'step 3 of 3']);
    expect(methodsOf(ledger.seen)).not.toContain('logging/setLevel');
    const [call] = toolCalls(ledger.seen, 'count');
    expect((call.body?.['params'] as { _meta: Record<string, unknown> })._meta).toMatchObject({ [MCP_META_KEY.logLevel]: 'debug', progressToken: expect.anything() });
  });

  it("cancels the upstream call the 2026 way, by closing its stream, when the agent gives up", async () => {
    const alice = await open();
    const before = ledger.cancelledCalls();
    await expect(alice.client.callTool({ name: 'ledger.hold', arguments: {} }, undefined, { timeout: 300 })).rejects.toMatchObject({ code: -32001 });
    await waitFor(async () => (ledger.cancelledCalls() > before ? true : undefined), 'the upstream to see its stream closed', 5000);
  });

  it('shares one connection to a 2026 upstream registered with session affinity: it keeps no sessions', async () => {
    for (const account of ['ACC-1', 'ACC-2', 'ACC-3']) {
      const agent = await open();
      const result = await agent.client.callTool({ name: 'vault.balance', arguments: { account } });
      expect(result.structuredContent).toMatchObject({ account });
    }
    const methods = methodsOf(vault.seen);
    expect(methods.filter((m) => m === 'server/discover')).toHaveLength(1);
    expect(methods.filter((m) => m === 'subscriptions/listen')).toHaveLength(1);
  });

  it('learns of list changes through subscriptions/listen and lists the tools again', async () => {
    const listens = ledger.seen.filter((r) => r.body?.['method'] === 'subscriptions/listen');
    expect(listens).toHaveLength(1);
    expect((listens[0].body?.['params'] as { notifications: unknown }).notifications).toEqual({ toolsListChanged: true });
    const lists = () => ledger.seen.filter((r) => r.body?.['method'] === 'tools/list').length;
    const before = lists();
    ledger.changeBalanceDescription('Returns the balance and, now, the overdraft limit.');
    await waitFor(async () => (lists() > before ? true : undefined), 'the edge to list the upstream tools again', 5000);
  });

  it('opens the listen stream again when it drops, and lists again for what it may have missed', async () => {
    const listens = () => ledger.seen.filter((r) => r.body?.['method'] === 'subscriptions/listen').length;
    const lists = () => ledger.seen.filter((r) => r.body?.['method'] === 'tools/list').length;
    const [listensBefore, listsBefore] = [listens(), lists()];
    ledger.dropListenStreams();
    await waitFor(async () => (listens() > listensBefore && lists() > listsBefore ? true : undefined), 'a new listen stream and a relist', 8000);
    expect(listens()).toBe(listensBefore + 1);
  });
});
