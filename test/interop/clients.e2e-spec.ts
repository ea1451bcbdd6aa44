import path from 'node:path';
import { bankSpecs } from '../../examples/bank/bank.specs';
import { startBankServer, type BankServerHandle } from '../../examples/bank/bank.server';
import { ADMIN, connect, http, token, waitFor } from '../support/estate.harness';
import { pythonWithMcp, runScript, startEstate, type RunningEstate, type ScriptRun } from './interop.harness';

const ALICE = { sub: 'alice', scope: 'bank:read', clearance: 'internal' };
const CAROL = { sub: 'carol', scope: 'bank:read bank:write', clearance: 'confidential' };
const CALL = { tool: 'bank.lookup', arguments: { reference: 'PMT-771' } };

type ToolRow = { name: string; properties: string[] };
const rows = (tools: Array<{ name: string; inputSchema: { properties?: object } }>): ToolRow[] =>
  tools.map((t) => ({ name: t.name, properties: Object.keys(t.inputSchema.properties ?? {}).sort() })).sort((a, b) => a.name.localeCompare(b.name));

/** The SDK 1.x client (the estate's own dependency), in-process, reporting like the scripts do. */
function sdk1Client(mcpUrl: string, bearer: string): ScriptRun {
  const lines: Array<Record<string, unknown>> = [];
  const startedAt = Date.now();
  const push = (line: Record<string, unknown>) => lines.push({ ...line, ms: Date.now() - startedAt });
  let failure: unknown;
  const flow = (async () => {
    const session = await connect(mcpUrl, bearer);
    try {
      push({ event: 'listed', tools: rows((await session.client.listTools()).tools) });
      const result = await session.client.callTool({ name: CALL.tool, arguments: CALL.arguments });
      push({ event: 'called', isError: result.isError === true, structuredContent: result.structuredContent ?? null });
      await waitFor(async () => (session.listChanged.length > 0 ? true : undefined), 'list_changed at the SDK 1.x client', 90000);
      push({ event: 'changed', tools: rows((await session.client.listTools()).tools) });
      return 0;
    } finally {
      await session.close();
    }
  })();
  flow.catch((error: unknown) => (failure = error));
  const found = async (event: string) => {
    if (failure) throw failure;
    return lines.find((l) => l.event === event);
  };
  return {
    lines,
    stderr: () => String(failure ?? ''),
    exited: flow.catch(() => 1),
    kill: () => undefined,
    waitFor: (event) => waitFor(() => found(event), `"${event}" from the SDK 1.x client`, 90000),
  };
}

type RunningClient = { label: string; principal: string; run: ScriptRun };

/** Every client kind, once per principal, all against the same edge. */
async function startClients(mcpUrl: string, python: string): Promise<RunningClient[]> {
  const clients: RunningClient[] = [];
  for (const [principal, claims] of [['alice', ALICE], ['carol', CAROL]] as const) {
    const bearer = await token(claims);
    const env = { ESTATE_MCP_URL: mcpUrl, ESTATE_TOKEN: bearer, INTEROP_TOOL: CALL.tool, INTEROP_ARGUMENTS: JSON.stringify(CALL.arguments) };
    const sdk2 = path.join(__dirname, 'sdk2-client.mjs');
    clients.push({ label: 'sdk1', principal, run: sdk1Client(mcpUrl, bearer) });
    clients.push({ label: 'sdk2', principal, run: runScript(process.execPath, [sdk2], env) });
    clients.push({ label: 'python', principal, run: runScript(python, [path.join(__dirname, 'python-client.py')], env) });
    // A 2.x host that knows the stateless 2026-07-28 era probes with server/discover first and stays on 2026-07-28.
    clients.push({ label: 'sdk2-auto', principal, run: runScript(process.execPath, [sdk2], { ...env, INTEROP_NEGOTIATION: 'auto' }) });
  }
  return clients;
}

/**
 * Three MCP clients nobody here wrote — SDK 1.x, SDK 2.x (ESM, own process) and the Python SDK
 * (own process) — against one running edge: each lists, calls, hears list_changed after a publish
 * and relists, and all of them see the same filtered list for the same principal.
 */
describe('interoperability with the SDK 1.x, SDK 2.x and Python clients', () => {
  let estate: RunningEstate;
  let bank: BankServerHandle;
  let admin: string;
  let python: string;

  beforeAll(async () => {
    python = pythonWithMcp(); // fails (never skips) with the setup command when the venv is missing
    bank = await startBankServer({ port: 0 });
    estate = await startEstate();
    admin = await token(ADMIN);
    expect((await http('POST', `${estate.registryUrl}/v1/servers`, admin, { name: 'bank', url: bank.url, owner: 'payments-team' })).status).toBe(201);
    for (const spec of bankSpecs('bank')) expect((await http('POST', `${estate.registryUrl}/v1/tools`, admin, spec)).status).toBe(201);
    await waitFor(async () => (estate.edgeTools() >= 3 ? true : undefined), 'the edge to hold the bank tools');
  }, 120000);

  afterAll(async () => {
    await estate?.stop();
    await bank?.close();
  });

  it('gives each client the same list, call result and list_changed, filtered per principal', async () => {
    const clients = await startClients(estate.mcpUrl, python);
    try {
      const before = bank.stats().calls.lookup;
      const called = await Promise.all(clients.map(async (c) => ({ ...c, listed: await c.run.waitFor('listed'), called: await c.run.waitFor('called') })));
      const lookupV1 = { name: 'bank.lookup', properties: ['reference'] };
      const transfer = { name: 'bank.transfer', properties: ['amount', 'currency', 'from', 'to'] };
      for (const c of called) {
        const expected = c.principal === 'alice' ? [lookupV1] : [lookupV1, transfer];
        expect({ client: c.label, principal: c.principal, tools: c.listed.tools }).toEqual({ client: c.label, principal: c.principal, tools: expected });
        expect({ client: c.label, ...c.called }).toMatchObject({ client: c.label, isError: false, structuredContent: { reference: 'PMT-771' } });
      }
      expect(bank.stats().calls.lookup).toBe(before + clients.length);
      const versions = called.map((c) => `${c.label}/${c.principal}=${String(c.listed.protocolVersion ?? 'sdk default')}`);
      process.stderr.write(`[interop] negotiated protocol versions: ${versions.join(', ')}\n`);

      const next = bankSpecs('bank')[0];
      const memo = { ...next, version: '1.1.0', inputSchema: { ...next.inputSchema, properties: { ...(next.inputSchema.properties as object), memo: { type: 'string' } } } };
      expect((await http('POST', `${estate.registryUrl}/v1/tools`, admin, memo)).status).toBe(201);

      const lookupV2 = { name: 'bank.lookup', properties: ['memo', 'reference'] };
      for (const c of clients) {
        const changed = await c.run.waitFor('changed');
        const expected = c.principal === 'alice' ? [lookupV2] : [lookupV2, transfer];
        expect({ client: c.label, principal: c.principal, tools: changed.tools }).toEqual({ client: c.label, principal: c.principal, tools: expected });
      }
      const timeline = clients.map((c) => `${c.label}/${c.principal}: ${c.run.lines.map((l) => `${String(l.event)}@${String(l.ms ?? '-')}ms`).join(' ')}`);
      process.stderr.write(`[interop] timeline since spawn:\n  ${timeline.join('\n  ')}\n`);
      const codes = await Promise.all(clients.map(async (c) => ({ client: `${c.label}/${c.principal}`, code: await c.run.exited, stderr: (await c.run.exited) === 0 ? '' : c.run.stderr() })));
      expect(codes.filter((c) => c.code !== 0)).toEqual([]);
    } finally {
      clients.forEach((c) => c.run.kill());
    }
  }, 300000);
});
