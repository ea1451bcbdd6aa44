import type { ToolSpec } from '@estate/contracts';
import { bankSpecs } from '../examples/bank/bank.specs';
import { startBankServer } from '../examples/bank/bank.server';
import { connect, http, token, waitFor, type McpSession } from './support/estate.harness';
import { startToolsStack, type ToolsStack } from './support/edge-tools.fixture';

const TELLER = { sub: 'teller', scope: 'bank:read bank:release', clearance: 'confidential' };
const ALICE = { sub: 'alice', scope: 'bank:read', clearance: 'internal' };

/** The same JSON with every object's keys in reverse order: a published schema the edge must still match. */
function reversedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversedKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).reverse().map(([k, v]) => [k, reversedKeys(v)]));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('edge drift and list_changed precision (real Kafka, PostgreSQL, SDK client)', () => {
  let stack: ToolsStack;
  const sessions: McpSession[] = [];
  const open = async (claims: Record<string, string>) => {
    const s = await connect(stack.mcpUrl, await token(claims as { sub: string }));
    sessions.push(s);
    return s;
  };

  beforeAll(async () => {
    stack = await startToolsStack();
  }, 90000);

  afterAll(async () => {
    for (const s of sessions) await s.close().catch(() => undefined);
    await stack?.stop();
  });

  it('quarantines a tool whose upstream changed it without a new version: hidden, refused, recorded, one list_changed', async () => {
    // The demo's own specs, which the bank serves as published; keys in another order (they must still agree).
    const [lookup, , release] = bankSpecs('bank');
    const reordered = (spec: ToolSpec): ToolSpec => ({ ...spec, inputSchema: reversedKeys(spec.inputSchema) as ToolSpec['inputSchema'] });
    for (const spec of [reordered(lookup), reordered(release)]) await stack.publish(spec);
    const teller = await open(TELLER);
    const alice = await open(ALICE);
    await waitFor(async () => ((await teller.client.listTools()).tools.length === 2 ? true : undefined), 'both tools listed');
    expect((await alice.client.callTool({ name: 'bank.lookup', arguments: { reference: 'PMT-4' } })).isError).toBeFalsy();
    await sleep(300);
    expect(stack.edge.replica.isQuarantined('bank.lookup', '1.0.0')).toBe(false);
    const before = { teller: teller.listChanged.length, alice: alice.listChanged.length };

    const reached = stack.bank.stats().total;
    stack.faults.drift('lookup', { description: 'Looks up a payment, now also by IBAN.' });
    stack.faults.drift('release', { inputSchema: { type: 'object', properties: { reference: { type: 'string' }, force: { type: 'boolean' } } } });
    await waitFor(async () => ((await teller.client.listTools()).tools.length === 0 ? true : undefined), 'both drifted tools hidden');
    const refused = await alice.client.callTool({ name: 'bank.lookup', arguments: { reference: 'PMT-4' } }).then(() => undefined, (e: { code: number; message: string }) => e);
    expect(refused).toMatchObject({ code: -32601, message: expect.stringContaining('Unknown tool: bank.lookup') });
    expect(stack.bank.stats().total).toBe(reached);
    await sleep(500);
    expect(teller.listChanged.length - before.teller).toBe(1);
    expect(alice.listChanged.length - before.alice).toBe(1);

    const recorded = await stack.audit('type=ToolQuarantined', 2);
    expect(recorded.map((e) => [e.tool, e.principal]).sort()).toEqual([['bank.lookup', 'estate-edge'], ['bank.release', 'estate-edge']]);
    const version = await http('GET', `${stack.registryUrl}/v1/tools/bank.lookup/versions/1.0.0`, stack.admin);
    expect(version.body).toMatchObject({ quarantined: true });
    // Another edge, which never saw the drift, hides it too: the registry told everyone.
    const other = await stack.startEdge();
    const elsewhere = await connect(other.mcpUrl, await token(TELLER));
    sessions.push(elsewhere);
    await waitFor(async () => (other.replica.get('bank.lookup') ? true : undefined), 'the catalog at the second edge');
    expect((await elsewhere.client.listTools()).tools).toEqual([]);
  });

  it('refuses a quarantine from a caller without the estate:quarantine scope', async () => {
    const response = await http('POST', `${stack.registryUrl}/v1/tools/bank.lookup/versions/1.0.0/quarantine`, await token(ALICE), { reason: 'x' });
    expect(response.status).toBe(403);
  });

  it('notifies exactly the sessions whose visible list changed, across publish, deprecate, retire and quarantine', async () => {
    await stack.register({ name: 'ledger', url: stack.faults.url });
    const base: ToolSpec = {
      ...bankSpecs('ledger')[0], name: 'ledger.entries', description: 'Lists ledger entries of a payment.',
      tenants: ['north', 'south'], dataClassification: 'internal', requiredScopes: ['ledger:read'],
    };
    const north = await open({ sub: 'n', tenant: 'north', scope: 'ledger:read', clearance: 'internal' });
    const south = await open({ sub: 's', tenant: 'south', scope: 'ledger:read', clearance: 'restricted' });
    const east = await open({ sub: 'e', tenant: 'east', scope: 'ledger:read', clearance: 'restricted' });
    const counts = () => [north.listChanged.length, south.listChanged.length, east.listChanged.length];
    const step = async (action: () => Promise<unknown>, expected: number[], settled: () => boolean) => {
      const start = counts();
      await action();
      await waitFor(async () => (settled() ? true : undefined), 'the change at the edge');
      await sleep(600);
      expect(counts().map((c, i) => c - start[i])).toEqual(expected);
    };
    const version = (v: string) => stack.edge.replica.get('ledger.entries')?.versions.find((x) => x.version === v);

    await step(() => stack.publish({ ...base, version: '1.0.0' }), [1, 1, 0], () => !!version('1.0.0'));
    await step(() => stack.publish({ ...base, version: '1.1.0', description: 'Lists ledger entries of a payment, newest first.' }), [1, 1, 0], () => !!version('1.1.0'));
    // Only north may see 1.2.0 (its own tenant rule); south keeps 1.1.0.
    await step(() => stack.publish({ ...base, version: '1.2.0', tenants: ['north'], description: 'Lists ledger entries (north).' }), [1, 0, 0], () => !!version('1.2.0'));
    // Nobody resolves to 1.0.0 any more: deprecating it changes no one's list.
    await step(() => stack.lifecycle('ledger.entries', '1.0.0', 'deprecate'), [0, 0, 0], () => version('1.0.0')?.status === 'deprecated');
    await step(() => stack.lifecycle('ledger.entries', '1.2.0', 'retire'), [1, 0, 0], () => version('1.2.0')?.status === 'retired');
    await step(() => stack.lifecycle('ledger.entries', '1.1.0', 'quarantine'), [1, 1, 0], () => !!version('1.1.0')?.quarantined);
    expect((await north.client.listTools()).tools.map((t) => t.name)).not.toContain('ledger.entries');
  });

  it('detects drift when the upstream connection reopens, and refuses the call that reopened it', async () => {
    await stack.publish(bankSpecs('bank')[1]);
    const teller = await open({ sub: 'teller2', scope: 'bank:write', clearance: 'confidential' });
    const args = { from: 'A', to: 'B', amount: 1, currency: 'EUR' };
    expect((await teller.client.callTool({ name: 'bank.transfer', arguments: args })).isError).toBeFalsy();

    // The upstream goes away and comes back serving a different contract, without saying so.
    const port = stack.bank.port;
    await stack.bank.close();
    stack.faults.drift('transfer', { description: 'Moves money, now in major units.' }, false);
    const down = await teller.client.callTool({ name: 'bank.transfer', arguments: args });
    expect(down.isError).toBe(true);
    const restarted = await startBankServer({ port });
    try {
      const answer = await waitFor(async () => {
        try {
          await teller.client.callTool({ name: 'bank.transfer', arguments: args });
          return undefined;
        } catch (error) {
          return error as { code: number; message: string };
        }
      }, 'the reopened connection to reveal the drift');
      expect(answer).toMatchObject({ code: -32601, message: expect.stringContaining('Unknown tool: bank.transfer') });
      expect(restarted.stats().calls.transfer).toBe(0);
      await stack.audit('type=ToolQuarantined&tool=bank.transfer', 1);
    } finally {
      await restarted.close();
    }
  });
});
