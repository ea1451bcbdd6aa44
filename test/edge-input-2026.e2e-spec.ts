import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { createLogger } from '@estate/platform';
import { composeEstate } from '../apps/estate/src/estate.composition';
import { startNotesServer } from '../examples/notes/notes.http';
import { notesSpecs } from '../examples/notes/notes.specs';
import { ADMIN, http, token, waitFor } from './support/estate.harness';
import { ACCEPT_BOTH, raw } from './support/edge-wire';
import { testEstateEnv } from './support/estate.stack';
import { createTestDatabase } from './support/infra';

/*
 * An upstream that asks its caller something (elicitation) while serving a 2026-07-28 agent's
 * tools/call. The agent has no session and no stream the upstream's request could ride, so the
 * edge refuses it; what this checks is that the refusal is attributed to that agent (audited under
 * its principal, with the tool it called), not answered as if no call were in flight.
 */

const V = '2026-07-28';
const ALICE = { sub: 'alice', scope: 'notes:read', clearance: 'internal' };

const textOf = (result: unknown) => (((result as { content?: Array<{ text?: string }> }).content) ?? []).map((c) => c.text).join('');

describe('upstream elicitation during a 2026-07-28 tools/call', () => {
  const logger = createLogger('e2e', 'error');
  const stops: Array<() => Promise<void>> = [];
  let urls: { registry: string; mcp: string; audit: string };

  async function call(name: string, args: Record<string, unknown>, capabilities: Record<string, unknown>) {
    const _meta = { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': capabilities, 'io.modelcontextprotocol/clientInfo': { name: 'input-2026', version: '1' } };
    const body = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args, _meta } };
    const headers = {
      authorization: `Bearer ${await token(ALICE)}`, 'content-type': 'application/json', accept: ACCEPT_BOTH,
      'mcp-protocol-version': V, 'mcp-method': 'tools/call', 'mcp-name': name,
    };
    const answer = await raw(urls.mcp, { headers, body: JSON.stringify(body) });
    expect(answer.status).toBe(200);
    return JSON.parse(answer.text) as { result?: Record<string, unknown>; error?: { code: number; message: string } };
  }

  beforeAll(async () => {
    const db = await createTestDatabase();
    stops.push(db.drop);
    const estate = await composeEstate({ env: testEstateEnv(), databaseUrl: db.url, logger, services: ['registry', 'discovery', 'audit', 'edge'] });
    stops.push(estate.stop);
    const { registry, audit, edge } = estate;
    if (!registry || !audit || !edge) throw new Error('the estate started without one of its services');
    urls = { registry: registry.url, mcp: edge.mcpUrl, audit: audit.url };
    const admin = await token(ADMIN);
    const upstream = await startNotesServer({ name: 'notes' });
    stops.unshift(upstream.close);
    const server = { name: 'notes', namespace: 'notes', url: upstream.url, owner: 'notes-team', allowSampling: true, allowElicitation: true };
    expect((await http('POST', `${urls.registry}/v1/servers`, admin, server)).status).toBe(201);
    for (const spec of notesSpecs('notes', 'notes', 'notes:read')) expect((await http('POST', `${urls.registry}/v1/tools`, admin, spec)).status).toBe(201);
    await waitFor(async () => (edge.replica.get('notes.ask-user') ? true : undefined), 'notes.ask-user in the edge catalog');
  }, 60000);

  afterAll(async () => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  });

  it('refuses the upstream request on behalf of the agent that caused it, and audits it under that agent', async () => {
    const asked = await call('notes.ask-user', { question: 'a title, please' }, { elicitation: { form: {} } });
    expect(asked.error).toBeUndefined();
    expect(asked.result).toMatchObject({ isError: true, resultType: 'complete' });
    expect(textOf(asked.result)).toContain(`a ${V} request cannot be asked for elicitation/create during its call`);

    const admin = await token(ADMIN);
    const refused = await waitFor(async () => {
      const r = await http('GET', `${urls.audit}/v1/audit?principal=alice&type=UpstreamRequestRefused`, admin);
      const entries = r.body.entries as Array<Record<string, unknown>> | undefined;
      return entries?.length === 1 ? entries : undefined;
    }, 'one refused upstream request under alice');
    expect(refused.map((e) => [e.tool, e.outcome])).toEqual([['notes.ask-user', 'refused:client_not_capable']]);
    // Nothing was relayed to anyone.
    const relayed = await http('GET', `${urls.audit}/v1/audit?type=UpstreamRequestRelayed`, admin);
    expect(relayed.body.entries).toEqual([]);
  });

  it('never hands an upstream question caused by a 2026-07-28 call to a session calling the same server meanwhile', async () => {
    // A session whose own elicitation is still open keeps its call to notes in flight.
    const asked: string[] = [];
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => { release = resolve; });
    const session = new Client({ name: 'input-2026-session', version: '1' }, { capabilities: { elicitation: {} } });
    session.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params.message);
      if (asked.length === 1) await held;
      return { action: 'accept', content: { title: 'from the session' } };
    });
    await session.connect(new StreamableHTTPClientTransport(new URL(urls.mcp), { requestInit: { headers: { authorization: `Bearer ${await token(ALICE)}` } } }));
    try {
      const sessionCall = session.callTool({ name: 'notes.ask-user', arguments: { question: 'the session asks' } });
      await waitFor(async () => (asked.length === 1 ? true : undefined), 'the session to be asked');
      const agent = await call('notes.ask-user', { question: 'the agent asks' }, { elicitation: { form: {} } });
      expect(textOf(agent.result)).toContain('2 callers had requests to it in flight');
      expect(asked).toEqual(['the session asks']);
      release();
      expect(textOf(await sessionCall)).toBe('user said: from the session');
    } finally {
      release();
      await session.close();
    }
  });

  it('still answers a tool that asks nothing', async () => {
    const counted = await call('notes.count', { to: 2 }, {});
    expect(counted.result).toMatchObject({ resultType: 'complete' });
    expect(counted.result?.isError).toBeFalsy();
  });
});
