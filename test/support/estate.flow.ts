import { bankSpecs } from '../../examples/bank/bank.specs';
import { ADMIN, connect, http, token, waitFor } from './estate.harness';

export interface EstateUnderTest {
  registryUrl: string;
  mcpUrl: string;
  auditUrl: string;
  bankUrl: string;
  upstreamCalls(): number;
}

const ALICE = { sub: 'alice', scope: 'bank:read', clearance: 'internal' };
const BOB = { sub: 'bob', scope: 'crm:read', clearance: 'internal' };

interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

async function callError(run: () => Promise<unknown>): Promise<RpcError> {
  try {
    await run();
  } catch (error) {
    const e = error as RpcError;
    return { code: e.code, message: e.message, data: e.data };
  }
  throw new Error('the call succeeded but was expected to fail');
}

/**
 * The acceptance flow of the foundation: publish on one side, list, notify, call and audit on
 * the other, through whichever deployment `estate` points at.
 */
export async function publishToCallFlow(estate: EstateUnderTest): Promise<void> {
  const admin = await token(ADMIN);
  const registered = await http('POST', `${estate.registryUrl}/v1/servers`, admin, { name: 'bank', url: estate.bankUrl, owner: 'payments-team' });
  expect(registered.status).toBe(201);
  const lookup = bankSpecs('bank')[0];
  const first = await http('POST', `${estate.registryUrl}/v1/tools`, admin, lookup);
  expect(first).toMatchObject({ status: 201, body: { name: 'bank.lookup', version: '1.0.0', bump: 'initial' } });

  const alice = await connect(estate.mcpUrl, await token(ALICE));
  const bob = await connect(estate.mcpUrl, await token(BOB));
  try {
    await waitFor(async () => ((await alice.client.listTools()).tools.some((t) => t.name === 'bank.lookup') ? true : undefined), 'alice to see bank.lookup');
    expect((await bob.client.listTools()).tools).toEqual([]);
    // Alice may have connected before 1.0.0 reached the edge: its list_changed can still be on its
    // way. Let it land, so the notification counted below is the one for 1.1.0.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const heard = alice.listChanged.length;

    const properties = { ...(lookup.inputSchema.properties as object), memo: { type: 'string', maxLength: 140 } };
    const next = { ...lookup, version: '1.1.0', inputSchema: { ...lookup.inputSchema, properties } };
    const published = Date.now();
    const second = await http('POST', `${estate.registryUrl}/v1/tools`, admin, next);
    expect(second).toMatchObject({ status: 201, body: { version: '1.1.0', bump: 'minor' } });
    await waitFor(async () => (alice.listChanged.length > heard ? true : undefined), 'list_changed at alice', 5000);
    expect(alice.listChanged[heard] - published).toBeLessThan(5000);
    await new Promise((resolve) => setTimeout(resolve, 750));
    expect(bob.listChanged).toEqual([]);

    const relisted = await alice.client.listTools();
    expect(relisted.tools).toHaveLength(1);
    expect(relisted.tools[0].inputSchema).toEqual(next.inputSchema);
    // The published contract, byte for byte: key order survives the event store and the catalog.
    expect(JSON.stringify(relisted.tools[0].inputSchema)).toBe(JSON.stringify(next.inputSchema));
    expect(relisted.tools[0].description).toBe(next.description);

    const before = estate.upstreamCalls();
    const result = await alice.client.callTool({ name: 'bank.lookup', arguments: { reference: 'PMT-771' } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ reference: 'PMT-771' });
    expect(estate.upstreamCalls()).toBe(before + 1);

    expect((await bob.client.listTools()).tools.map((t) => t.name)).not.toContain('bank.lookup');
    const hidden = await callError(() => bob.client.callTool({ name: 'bank.lookup', arguments: { reference: 'PMT-771' } }));
    const missing = await callError(() => bob.client.callTool({ name: 'bank.nothing', arguments: { reference: 'PMT-771' } }));
    expect(hidden).toEqual({ code: -32601, message: expect.stringContaining('Unknown tool: bank.lookup'), data: undefined });
    expect({ ...missing, message: missing.message.replace('bank.nothing', 'bank.lookup') }).toEqual(hidden);
    expect(estate.upstreamCalls()).toBe(before + 1);
  } finally {
    await alice.close();
    await bob.close();
  }

  const publishes = await waitFor(async () => {
    const r = await http('GET', `${estate.auditUrl}/v1/audit?type=ToolVersionPublished&tool=bank.lookup`, admin);
    return (r.body.entries as unknown[] | undefined)?.length === 2 ? (r.body.entries as Array<Record<string, unknown>>) : undefined;
  }, 'both publishes in the audit trail');
  expect(publishes.map((e) => [e.tool, e.version, e.principal])).toEqual([
    ['bank.lookup', '1.1.0', 'platform-admin'],
    ['bank.lookup', '1.0.0', 'platform-admin'],
  ]);
  const calls = await waitFor(async () => {
    const r = await http('GET', `${estate.auditUrl}/v1/audit?tool=bank.lookup&type=ToolCallCompleted`, admin);
    return (r.body.entries as unknown[] | undefined)?.length === 1 ? (r.body.entries as Array<Record<string, unknown>>) : undefined;
  }, 'the call in the audit trail');
  expect(calls[0]).toMatchObject({ principal: 'alice', tool: 'bank.lookup', version: '1.1.0', outcome: 'ok' });
  const refused = await waitFor(async () => {
    const r = await http('GET', `${estate.auditUrl}/v1/audit?principal=bob&type=ToolCallRefused`, admin);
    return (r.body.entries as unknown[] | undefined)?.length === 2 ? (r.body.entries as Array<Record<string, unknown>>) : undefined;
  }, 'both refusals in the audit trail');
  expect(refused.map((e) => [e.tool, e.outcome]).sort()).toEqual([
    ['bank.lookup', 'refused:unknown_tool'],
    ['bank.nothing', 'refused:unknown_tool'],
  ]);
}
