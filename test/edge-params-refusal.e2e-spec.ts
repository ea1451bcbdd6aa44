import { spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { bankSpecs } from '../examples/bank/bank.specs';
import { token, waitFor } from './support/estate.harness';
import { ACCEPT_BOTH, raw, sseMessages } from './support/edge-wire';
import { rawSession, startToolsStack, type ToolsStack } from './support/edge-tools.fixture';
import { REPO_ROOT } from './support/infra';

/*
 * A tools/call whose params do not fit MCP's shape (arguments that are no object, no name) is
 * refused before any handler runs. Whatever the transport, the caller gets -32602 saying what is
 * wrong where, and the auditor and the metrics see a refusal like any other: the SDK's schema
 * used to answer stdio with -32603 and its validator's dump, and HTTP recorded nothing.
 */

const CAROL = { sub: 'carol', scope: 'bank:read', clearance: 'internal' };
const DAVE = { sub: 'dave', scope: 'bank:read', clearance: 'internal' };
const NOT_AN_OBJECT = { code: -32602, message: 'Invalid params for tools/call: params.arguments: Invalid input: expected object, received string' };

function refusals(metrics: string): number {
  const sample = /^estate_tool_call_refusals_total\{[^}]*reason="invalid_params"[^}]*\} (\S+)$/m.exec(metrics);
  return sample ? Number(sample[1]) : 0;
}

describe('a tools/call with params that do not fit is answered -32602 and recorded, on every transport', () => {
  let stack: ToolsStack;
  const metrics = async () => (await fetch(`${stack.edge.url}/metrics`)).text();

  beforeAll(async () => {
    stack = await startToolsStack();
    await stack.publish(bankSpecs('bank')[0]);
  }, 120000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('on a 2025-06-18 HTTP session: the refusal names the principal and the tool, and is counted', async () => {
    const bearer = await token(CAROL);
    const session = await rawSession(stack.mcpUrl, bearer, '2025-06-18');
    const before = { upstream: stack.bank.stats().total, refusals: refusals(await metrics()) };
    const answer = await raw(stack.mcpUrl, {
      headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json', accept: ACCEPT_BOTH, 'mcp-session-id': session.session.id, 'mcp-protocol-version': '2025-06-18' },
      body: '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"bank.lookup","arguments":"str"}}',
    });
    expect({ status: answer.status, message: sseMessages(answer.text)[0] ?? JSON.parse(answer.text) }).toEqual({ status: 200, message: { jsonrpc: '2.0', id: 5, error: NOT_AN_OBJECT } });
    const noName = await session.request('tools/call', { arguments: {} });
    expect(noName.message.error).toMatchObject({ code: -32602, message: expect.stringContaining('params.name') });

    // A refusal without a name is recorded with none (the trail shows null).
    const refused = await stack.audit('principal=carol&type=ToolCallRefused', 2);
    expect(refused.map((e) => [e.outcome, e.tool])).toEqual(expect.arrayContaining([['refused:invalid_params', 'bank.lookup'], ['refused:invalid_params', null]]));
    await waitFor(async () => (refusals(await metrics()) === before.refusals + 2 ? true : undefined), 'two invalid_params refusals counted');
    expect(stack.bank.stats().total).toBe(before.upstream);
  });

  it('over stdio: -32602 with the same words instead of -32603 and a validator dump, and recorded', async () => {
    const child = spawn(process.execPath, [path.join(REPO_ROOT, 'dist/apps/mcp-edge/src/stdio/main.js')], {
      cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, ...stack.env, ESTATE_EDGE_GROUP: `edge-stdio-${Date.now()}`, ESTATE_STDIO_TOKEN: await token(DAVE) },
    });
    const lines: Array<Record<string, unknown>> = [];
    createInterface({ input: child.stdout }).on('line', (line) => lines.push(JSON.parse(line) as Record<string, unknown>));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const answer = (id: unknown) => waitFor(async () => lines.find((m) => m.id === id), `the answer to ${String(id)}`, 20000);
    try {
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'unfit', version: '1' } } })}\n`);
      await answer(1);
      child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
      child.stdin.write('{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"bank.nosuchtool","arguments":"str"}}\n');
      expect(await answer(5)).toEqual({ jsonrpc: '2.0', id: 5, error: NOT_AN_OBJECT });
    } finally {
      child.stdin.end();
    }
    await exited;
    const refused = await stack.audit('principal=dave&type=ToolCallRefused', 1);
    expect(refused.map((e) => [e.outcome, e.tool])).toEqual([['refused:invalid_params', 'bank.nosuchtool']]);
  }, 60000);
});
