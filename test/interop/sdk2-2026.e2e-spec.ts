import path from 'node:path';
import { bankSpecs } from '../../examples/bank/bank.specs';
import { startBankServer, type BankServerHandle } from '../../examples/bank/bank.server';
import { ADMIN, http, token, waitFor } from '../support/estate.harness';
import { runScript, startEstate, type RunningEstate } from './interop.harness';

const ALICE = { sub: 'alice', scope: 'bank:read', clearance: 'internal' };
const CAROL = { sub: 'carol', scope: 'bank:read bank:write', clearance: 'confidential' };

/**
 * The TypeScript SDK 2.x client (its own process, ESM), which speaks 2026-07-28, pinned to that
 * revision: it discovers instead of initializing, lists, calls and hears list_changed through
 * subscriptions/listen, each principal seeing only its own tools.
 */
describe('interoperability on MCP 2026-07-28 with the SDK 2.x client', () => {
  let estate: RunningEstate;
  let bank: BankServerHandle;
  let admin: string;

  beforeAll(async () => {
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

  it('lists, calls and hears list_changed on 2026-07-28, filtered per principal', async () => {
    const script = path.join(__dirname, 'sdk2-client.mjs');
    const runs = await Promise.all([['alice', ALICE], ['carol', CAROL]].map(async ([name, claims]) => {
      const env = {
        ESTATE_MCP_URL: estate.mcpUrl, ESTATE_TOKEN: await token(claims as typeof ALICE), INTEROP_TOOL: 'bank.lookup',
        INTEROP_ARGUMENTS: JSON.stringify({ reference: 'PMT-2026' }), INTEROP_NEGOTIATION: 'auto',
      };
      return { name: name as string, run: runScript(process.execPath, [script], env) };
    }));
    try {
      for (const { name, run } of runs) {
        const listed = await run.waitFor('listed');
        const names = (listed.tools as Array<{ name: string }>).map((t) => t.name);
        expect({ name, protocolVersion: listed.protocolVersion, names }).toEqual({ name, protocolVersion: '2026-07-28', names: name === 'alice' ? ['bank.lookup'] : ['bank.lookup', 'bank.transfer'] });
        expect(await run.waitFor('called')).toMatchObject({ isError: false, structuredContent: { reference: 'PMT-2026' } });
      }
      const next = bankSpecs('bank')[0];
      const memo = { ...next, version: '1.1.0', inputSchema: { ...next.inputSchema, properties: { ...(next.inputSchema.properties as object), memo: { type: 'string' } } } };
      expect((await http('POST', `${estate.registryUrl}/v1/tools`, admin, memo)).status).toBe(201);
      for (const { name, run } of runs) {
        const changed = await run.waitFor('changed');
        const lookup = (changed.tools as Array<{ name: string; properties: string[] }>).find((t) => t.name === 'bank.lookup');
        expect({ name, properties: lookup?.properties }).toEqual({ name, properties: ['memo', 'reference'] });
        expect(await run.exited).toBe(0);
      }
    } finally {
      runs.forEach(({ run }) => run.kill());
    }
  }, 300000);
});
