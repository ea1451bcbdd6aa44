import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startBankServer, type BankServerHandle } from '../examples/bank/bank.server';
import { bankSpecs } from '../examples/bank/bank.specs';
import { ADMIN, http, token, waitFor } from './support/estate.harness';
import { startEstateServices, type EstateServices } from './support/estate.stack';

describe('upstream sessions: shared, or one per downstream session when the upstream keeps state', () => {
  let estate: EstateServices;
  let shared: BankServerHandle;
  let stateful: BankServerHandle;
  let mcpUrl: string;

  beforeAll(async () => {
    estate = await startEstateServices({ name: 'affinity-e2e' });
    shared = await startBankServer({ port: 0 });
    stateful = await startBankServer({ port: 0 });
    estate.onStop(shared.close);
    estate.onStop(stateful.close);
    const edge = await estate.startEdge();
    mcpUrl = edge.mcpUrl;
    const admin = await token(ADMIN);
    expect((await http('POST', `${estate.registryUrl}/v1/servers`, admin, { name: 'shared', url: shared.url, owner: 'ops' })).status).toBe(201);
    expect((await http('POST', `${estate.registryUrl}/v1/servers`, admin, { name: 'stateful', url: stateful.url, owner: 'ops', sessionAffinity: true })).status).toBe(201);
    for (const spec of [bankSpecs('shared')[0], bankSpecs('stateful')[0]]) {
      expect((await http('POST', `${estate.registryUrl}/v1/tools`, admin, spec)).status).toBe(201);
      await waitFor(async () => (edge.replica.get(spec.name) ? true : undefined), `${spec.name} at the edge`);
    }
  });

  afterAll(async () => {
    await estate.stop();
  });

  async function session(sub: string) {
    const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), {
      requestInit: { headers: { authorization: `Bearer ${await token({ sub, scope: 'bank:read', clearance: 'internal' })}` } },
    });
    const client = new Client({ name: 'affinity', version: '1' });
    await client.connect(transport);
    return { client, transport };
  }

  it('shares one upstream session by default, opens one per downstream session for a stateful upstream, and ends it with the session', async () => {
    const alice = await session('alice');
    const bob = await session('bob');
    for (const { client } of [alice, bob]) {
      for (const name of ['shared.lookup', 'stateful.lookup']) {
        const result = await client.callTool({ name, arguments: { reference: 'PMT-771' } });
        expect(result.isError).toBeFalsy();
      }
    }
    expect(shared.stats().total).toBe(2);
    expect(stateful.stats().total).toBe(2);
    // The edge keeps its own session with every upstream (drift watch, resources, prompts);
    // calls to a stateful upstream get one more per downstream session.
    expect(shared.sessionCount()).toBe(1);
    expect(stateful.sessionCount()).toBe(1 + 2);

    await alice.transport.terminateSession();
    await waitFor(async () => (stateful.sessionCount() === 1 + 1 ? true : undefined), 'the stateful upstream session of alice to end', 5000);
    expect(shared.sessionCount()).toBe(1);
    expect((await bob.client.callTool({ name: 'stateful.lookup', arguments: { reference: 'PMT-771' } })).isError).toBeFalsy();
    await alice.client.close();
    await bob.client.close();
  });

  it('refuses a registration whose sessionAffinity is not a boolean, naming the field', async () => {
    const admin = await token(ADMIN);
    const r = await http('POST', `${estate.registryUrl}/v1/servers`, admin, { name: 'odd', url: shared.url, owner: 'ops', sessionAffinity: 'yes' });
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.body)).toContain('$.sessionAffinity');
  });
});
