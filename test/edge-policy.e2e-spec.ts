import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { bankSpecs } from '../examples/bank/bank.specs';
import { connect, token, waitFor, type McpSession } from './support/estate.harness';
import { startToolsStack, type ToolsStack } from './support/edge-tools.fixture';
import { RevisionPinnedTransport } from './support/edge-wire';

const [lookup, transfer, release] = bankSpecs('bank');
const TELLER = { sub: 'teller', scope: 'bank:read bank:write bank:release', clearance: 'confidential' };
const who = (sub: string, scope = TELLER.scope) => ({ ...TELLER, sub, scope });
const text = (r: CallToolResult) => (r.content as Array<{ text: string }>)[0].text;
const transferArgs = { from: 'ACC-1', to: 'ACC-2', amount: 100, currency: 'EUR' };
/** A destructive tool with an open schema: the agent chooses its keys (the bank never sees a call to it here). */
const nuke = {
  ...release, name: 'bank.nuke', title: 'Nuke', description: 'Deletes what x names. Cannot be undone.', requiredScopes: ['bank:nuke'],
  inputSchema: { type: 'object', properties: { x: { type: 'string' } } },
};

describe('edge policy: retries, confirmation, rate and size limits (real Kafka, PostgreSQL, SDK client)', () => {
  let stack: ToolsStack;
  const closers: Array<() => Promise<void>> = [];
  const open = async (sub: string) => {
    const s: McpSession = await connect(stack.mcpUrl, await token(who(sub)));
    closers.push(s.close);
    return s.client;
  };
  /** A client that declares elicitation and answers every confirmation with `action`. */
  const eliciting = async (sub: string, action: 'accept' | 'decline' | 'cancel', scope?: string) => {
    const asked: string[] = [];
    const client = new Client({ name: 'eliciting', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params.message);
      return action === 'accept' ? { action, content: {} } : { action };
    });
    const bearer = await token(who(sub, scope));
    await client.connect(new StreamableHTTPClientTransport(new URL(stack.mcpUrl), { requestInit: { headers: { authorization: `Bearer ${bearer}` } } }));
    closers.push(() => client.close());
    return { client, asked };
  };
  const count = (tool: string) => stack.bank.stats().calls[tool] ?? 0;

  beforeAll(async () => {
    stack = await startToolsStack({ ESTATE_RATE_PER_PRINCIPAL: '8', ESTATE_RATE_PER_TOOL: '1000', ESTATE_MAX_ARGUMENT_BYTES: '2048' });
    for (const spec of [lookup, transfer, release, nuke]) await stack.publish(spec);
  }, 90000);

  afterAll(async () => {
    for (const close of closers) await close().catch(() => undefined);
    await stack?.stop();
  });

  it('retries a read that failed once, and never retries a write', async () => {
    const client = await open('retry-user');
    const lookups = count('lookup');
    stack.faults.failAfterForward('lookup', 1);
    const read = await client.callTool({ name: 'bank.lookup', arguments: { reference: 'PMT-3' } });
    expect(read.isError).toBeFalsy();
    expect(count('lookup')).toBe(lookups + 2);

    const transfers = count('transfer');
    stack.faults.failAfterForward('transfer', 1);
    const write = (await client.callTool({ name: 'bank.transfer', arguments: transferArgs })) as CallToolResult;
    expect(write.isError).toBe(true);
    expect(text(write)).toContain('Attempts: 1');
    expect(count('transfer')).toBe(transfers + 1);
    const done = await stack.audit('principal=retry-user&type=ToolCallCompleted', 2);
    expect(done.map((e) => e.tool).sort()).toEqual(['bank.lookup', 'bank.transfer']);
  });

  it('asks for confirmation of a destructive call with a single-use token bound to the arguments', async () => {
    const client = await open('token-user');
    const before = count('release');
    const first = (await client.callTool({ name: 'bank.release', arguments: { reference: 'PMT-11' } })) as CallToolResult;
    expect(first.isError).toBe(true);
    expect(text(first)).toContain('io.estate/confirm');
    const { token: confirm } = first._meta?.['io.estate/confirmation'] as { token: string };
    expect(count('release')).toBe(before);

    const other = (await client.callTool({ name: 'bank.release', arguments: { reference: 'PMT-12' }, _meta: { 'io.estate/confirm': confirm } })) as CallToolResult;
    expect(other.isError).toBe(true);
    expect(text(other)).toContain('different arguments');
    expect(count('release')).toBe(before);

    const again = (await client.callTool({ name: 'bank.release', arguments: { reference: 'PMT-11' } })) as CallToolResult;
    const { token: fresh } = again._meta?.['io.estate/confirmation'] as { token: string };
    const confirmed = await client.callTool({ name: 'bank.release', arguments: { reference: 'PMT-11' }, _meta: { 'io.estate/confirm': fresh } });
    expect(confirmed.isError).toBeFalsy();
    expect(confirmed.structuredContent).toEqual({ reference: 'PMT-11', status: 'released' });
    expect(count('release')).toBe(before + 1);

    const replayed = (await client.callTool({ name: 'bank.release', arguments: { reference: 'PMT-11' }, _meta: { 'io.estate/confirm': fresh } })) as CallToolResult;
    expect(replayed.isError).toBe(true);
    expect(count('release')).toBe(before + 1);
    const refused = await stack.audit('principal=token-user&type=ToolCallRefused', 4);
    expect(new Set(refused.map((e) => e.outcome))).toEqual(new Set(['refused:confirmation_required']));
  });

  it("answers another principal's token as unknown and leaves it for its owner", async () => {
    const owner = await open('releaser');
    const before = count('release');
    const args = { reference: 'PMT-23' };
    const issued = (await owner.callTool({ name: 'bank.release', arguments: args })) as CallToolResult;
    const { token: confirm } = issued._meta?.['io.estate/confirmation'] as { token: string };

    const other = await open('releaser2');
    const stolen = (await other.callTool({ name: 'bank.release', arguments: args, _meta: { 'io.estate/confirm': confirm } })) as CallToolResult;
    const madeUp = (await other.callTool({ name: 'bank.release', arguments: args, _meta: { 'io.estate/confirm': 'cfm_made-up' } })) as CallToolResult;
    const firstSentence = (r: CallToolResult) => text(r).slice(0, text(r).indexOf('. ') + 1);
    expect(firstSentence(stolen)).toBe('The confirmation token is not valid (unknown or already used).');
    expect(firstSentence(stolen)).toBe(firstSentence(madeUp));
    expect(count('release')).toBe(before);

    const confirmed = await owner.callTool({ name: 'bank.release', arguments: args, _meta: { 'io.estate/confirm': confirm } });
    expect(confirmed.isError).toBeFalsy();
    expect(count('release')).toBe(before + 1);
  });

  it('asks a client that supports elicitation, and proceeds only when the user accepts', async () => {
    const before = count('release');
    const yes = await eliciting('elicit-yes', 'accept');
    const accepted = await yes.client.callTool({ name: 'bank.release', arguments: { reference: 'PMT-21' } });
    expect(accepted.isError).toBeFalsy();
    // The person sees the call they approve, arguments included.
    expect(yes.asked).toEqual([
      'Confirm: Release a held payment (bank.release) is destructive. Releases a held payment for settlement. Cannot be undone.\nArguments: {"reference":"PMT-21"}',
    ]);
    expect(count('release')).toBe(before + 1);

    const no = await eliciting('elicit-no', 'decline');
    const declined = (await no.client.callTool({ name: 'bank.release', arguments: { reference: 'PMT-22' } })) as CallToolResult;
    expect(declined.isError).toBe(true);
    expect(text(declined)).toContain('did not confirm');
    expect(count('release')).toBe(before + 1);
  });

  /** A client opened on an older revision that declares elicitation and accepts every question; it keeps what the edge sent it. */
  const olderEliciting = async (sub: string, version: string) => {
    const transport = new RevisionPinnedTransport(stack.mcpUrl, await token(who(sub)), version);
    const client = new Client({ name: 'older-eliciting', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: {} }));
    await client.connect(transport);
    closers.push(() => client.close());
    return { client, transport };
  };

  it.each(['2024-11-05', '2025-03-26'])('hands a %s client that declares elicitation a confirmation token: its revision has no elicitation/create', async (version) => {
    const { client, transport } = await olderEliciting(`older-${version}`, version);
    const before = count('release');
    const result = (await client.callTool({ name: 'bank.release', arguments: { reference: 'PMT-31' } })) as CallToolResult;
    expect(transport.requests()).toEqual([]);
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('io.estate/confirm');
    const { token: confirm } = result._meta?.['io.estate/confirmation'] as { token: string };
    const confirmed = await client.callTool({ name: 'bank.release', arguments: { reference: 'PMT-31' }, _meta: { 'io.estate/confirm': confirm } });
    expect(confirmed.isError).toBeFalsy();
    expect(count('release')).toBe(before + 1);
  });

  it('asks a 2025-06-18 client with elicitation/create as that revision has it, without the 2025-11-25 mode', async () => {
    const { client, transport } = await olderEliciting('older-2025-06-18', '2025-06-18');
    const before = count('release');
    const accepted = await client.callTool({ name: 'bank.release', arguments: { reference: 'PMT-32' } });
    expect(accepted.isError).toBeFalsy();
    expect(transport.requests()).toEqual([{
      jsonrpc: '2.0', id: expect.anything(), method: 'elicitation/create',
      params: {
        message: 'Confirm: Release a held payment (bank.release) is destructive. Releases a held payment for settlement. Cannot be undone.\nArguments: {"reference":"PMT-32"}',
        requestedSchema: { type: 'object', properties: {} },
      },
    }]);
    expect(count('release')).toBe(before + 1);
  });

  it('shows the person every argument key however long the text before it, and asks nothing about arguments it cannot show', async () => {
    const nuker = await eliciting('nuker', 'decline', 'bank:nuke');
    const padding = 'routine cleanup of stale cache entries, nothing else; '.repeat(9);
    const padded = (await nuker.client.callTool({ name: 'bank.nuke', arguments: { comment: padding, x: 'ALL-PRODUCTION-DATA' } })) as CallToolResult;
    expect(text(padded)).toContain('did not confirm');
    expect(nuker.asked).toEqual([`Confirm: Nuke (bank.nuke) is destructive. Deletes what x names. Cannot be undone.\nArguments: {"comment":"${padding}","x":"ALL-PRODUCTION-DATA"}`]);

    // Withheld texts are shown as the estate's placeholder, which is longer than what they hide.
    const hidden = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`k${i}`, '\u200b']));
    const unshowable = (await nuker.client.callTool({ name: 'bank.nuke', arguments: { ...hidden, x: 'ALL-PRODUCTION-DATA' } })) as CallToolResult;
    expect(unshowable.isError).toBe(true);
    expect(text(unshowable)).toMatch(/^bank\.nuke is destructive and was not called: its arguments cannot be shown in full to the person who must confirm them \(\d+ characters even with every text cut short; the limit is 2000\)/);
    expect(nuker.asked).toHaveLength(1);
    const refused = await stack.audit('principal=nuker&type=ToolCallRefused', 2);
    expect(refused.map((e) => e.outcome)).toEqual(['refused:confirmation_required', 'refused:confirmation_required']);
  });

  it('limits calls per principal and says when to retry', async () => {
    const client = await open('busy-user');
    const results: CallToolResult[] = [];
    for (let i = 0; i < 9; i += 1) results.push((await client.callTool({ name: 'bank.lookup', arguments: { reference: `PMT-${i + 1}` } })) as CallToolResult);
    expect(results.slice(0, 8).every((r) => !r.isError)).toBe(true);
    const limited = results[8];
    expect(limited.isError).toBe(true);
    const retryAfter = limited._meta?.['io.estate/retryAfterMs'] as number;
    expect(retryAfter).toBeGreaterThan(0);
    expect(text(limited)).toContain(`Retry after ${retryAfter} ms`);
    // Another principal is not affected.
    const other = await open('quiet-user');
    expect((await other.callTool({ name: 'bank.lookup', arguments: { reference: 'PMT-1' } })).isError).toBeFalsy();
    const refused = await stack.audit('principal=busy-user&type=ToolCallRefused', 1);
    expect(refused[0].outcome).toBe('refused:rate_limited');
  });

  it('refuses oversized arguments before the upstream and oversized results after it', async () => {
    const client = await open('big-user');
    const before = count('transfer');
    const big = (await client.callTool({ name: 'bank.transfer', arguments: { ...transferArgs, from: 'x'.repeat(4000) } })) as CallToolResult;
    expect(big.isError).toBe(true);
    expect(text(big)).toContain('the limit is 2048 bytes');
    expect(count('transfer')).toBe(before);

    const small = await stack.startEdge({ ESTATE_MAX_RESULT_BYTES: '64' });
    const s = await connect(small.mcpUrl, await token(who('big-user')));
    closers.push(s.close);
    await waitFor(async () => ((await s.client.listTools()).tools.length === 3 ? true : undefined), 'the second edge to load the catalog');
    const result = (await s.client.callTool({ name: 'bank.lookup', arguments: { reference: 'PMT-9' } })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('the limit is 64 bytes');
    const refused = await stack.audit('principal=big-user&type=ToolCallRefused', 2);
    expect(refused.map((e) => e.outcome)).toEqual(['refused:too_large', 'refused:too_large']);
  });
});
