import { bankSpecs } from '../examples/bank/bank.specs';
import type { ToolSpec } from '@estate/contracts';
import { token } from './support/estate.harness';
import { ACCEPT_BOTH, mirroredHeaders, raw, sseMessages } from './support/edge-wire';
import { rawSession, startToolsStack, type ToolsStack } from './support/edge-tools.fixture';

/*
 * Arguments nested past the documented bound (64 levels, the arguments object being the first) are
 * invalid arguments like any other, answered the way each revision answers those, never -32603:
 * 3,000 levels of [[[…]]] (6 KB) used to overflow the edge's stack in repair and the size check.
 */

const ALICE = { sub: 'alice', scope: 'bank:read', clearance: 'internal' };
const [lookup] = bankSpecs('bank');
/** An open schema: repair copies what it does not know rather than dropping it. */
const loose: ToolSpec = {
  ...lookup, name: 'bank.lookup_loose', description: 'Returns a payment by its reference; other arguments are passed on unread.',
  inputSchema: { type: 'object', properties: { reference: { type: 'string' } }, required: ['reference'] },
};

/** The text of `{ name, arguments }` whose arguments nest `levels` deep: `{"reference":…,"x":[[…"a"…]]}`. */
function callText(name: string, levels: number, extra: Record<string, unknown> = {}): string {
  const x = `${'['.repeat(levels - 1)}"a"${']'.repeat(levels - 1)}`;
  return JSON.stringify({ name, ...extra, arguments: { reference: 'PMT-1', x: '<x>' } }).replace('"<x>"', x);
}

const TOO_DEEP = { path: `$.x${'[0]'.repeat(63)}`, keyword: 'too_deep', message: 'nests objects and arrays more than 64 levels deep' };

describe('the edge refuses arguments nested past 64 levels on every revision', () => {
  let stack: ToolsStack;
  const calls = () => stack.bank.stats().total;

  beforeAll(async () => {
    stack = await startToolsStack({ ESTATE_REQUEST_STATE_KEY: 'k'.repeat(40) });
    for (const spec of [lookup, loose]) await stack.publish(spec);
  }, 120000);

  afterAll(async () => {
    await stack?.stop();
  });

  async function sessionCall(version: string, text: string) {
    const session = await rawSession(stack.mcpUrl, await token(ALICE), version);
    const answer = await raw(stack.mcpUrl, {
      headers: { authorization: `Bearer ${await token(ALICE)}`, 'content-type': 'application/json', accept: ACCEPT_BOTH, 'mcp-session-id': session.session.id, 'mcp-protocol-version': version },
      body: `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":${text}}`,
    });
    return { status: answer.status, message: sseMessages(answer.text)[0] as { id: number; result?: Record<string, unknown>; error?: { code: number; data?: unknown } } };
  }

  async function statelessCall(text: string, name: string) {
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
    const params = text.replace(/^\{/, `{"_meta":${JSON.stringify(meta)},`);
    const answer = await raw(stack.mcpUrl, {
      headers: { authorization: `Bearer ${await token(ALICE)}`, 'content-type': 'application/json', accept: ACCEPT_BOTH, ...mirroredHeaders('tools/call', { name }) },
      body: `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":${params}}`,
    });
    return { status: answer.status, message: JSON.parse(answer.text) as { result?: Record<string, unknown>; error?: { code: number } } };
  }

  it.each(['2024-11-05', '2025-03-26', '2025-06-18'])('answers %s with -32602 naming the path, for open and closed schemas alike', async (version) => {
    const before = calls();
    for (const [name, levels] of [['bank.lookup_loose', 3000], ['bank.lookup_loose', 65], ['bank.lookup', 3000]] as const) {
      const answer = await sessionCall(version, callText(name, levels));
      expect({ name, levels, status: answer.status, id: answer.message.id, error: answer.message.error }).toEqual({
        name, levels, status: 200, id: 7, error: { code: -32602, message: `Invalid arguments for tool ${name}`, data: { errors: [TOO_DEEP] } },
      });
    }
    expect(calls()).toBe(before);
  });

  it('answers 2025-11-25 with an isError result carrying the error, and lets 64 levels through', async () => {
    const before = calls();
    const refused = await sessionCall('2025-11-25', callText('bank.lookup_loose', 3000));
    expect(refused.message.result).toMatchObject({ isError: true, _meta: { 'io.estate/validation': [TOO_DEEP] } });
    expect(calls()).toBe(before);
    const deepest = await sessionCall('2025-11-25', callText('bank.lookup_loose', 64));
    expect(deepest.message.result).toMatchObject({ structuredContent: { reference: 'PMT-1' } });
    expect(deepest.message.result?.isError).toBeUndefined();
  });

  it('answers 2026-07-28 with an isError result, with or without a requestState, even 300,000 levels deep', async () => {
    const before = calls();
    const cases = [
      callText('bank.lookup_loose', 3000),
      callText('bank.lookup_loose', 300_000),
      callText('bank.lookup_loose', 3000, { requestState: 'v1.e30.forged', inputResponses: {} }),
    ];
    for (const text of cases) {
      const answer = await statelessCall(text, 'bank.lookup_loose');
      expect({ status: answer.status, error: answer.message.error }).toEqual({ status: 200, error: undefined });
      expect(answer.message.result).toMatchObject({ isError: true, _meta: { 'io.estate/validation': [TOO_DEEP] } });
    }
    expect(calls()).toBe(before);
  });

  it('records the refusal as invalid arguments', async () => {
    await sessionCall('2025-11-25', callText('bank.lookup_loose', 100));
    const refused = await stack.audit('principal=alice&type=ToolCallRefused', 1);
    expect(refused.map((e) => e.outcome)).toContain('refused:invalid_arguments');
  });
});
