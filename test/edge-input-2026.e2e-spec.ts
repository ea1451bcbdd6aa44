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
import { createInterviewerServer, interviewerSpecs } from './support/interviewer-upstream.server';
import { ledgerSpecs, startStateless2026Upstream, type Stateless2026Upstream } from './support/stateless-2026-upstream.server';

/*
 * An upstream that asks its caller something (elicitation, sampling) while serving a 2026-07-28
 * agent's tools/call. The agent has no session and no stream the upstream's request could ride:
 * the edge answers its tools/call with input_required carrying the question, keeps the upstream
 * call parked, and resumes it when the agent retries with the answer. Real HTTP, Kafka and
 * PostgreSQL; the agent is raw HTTP written against the revision's schema.
 */

const V = '2026-07-28';
const PARK_TTL_SECONDS = 3;
const ALICE = { sub: 'alice', scope: 'notes:read ledger:read', clearance: 'internal' };
const BOB = { sub: 'bob', scope: 'notes:read ledger:read', clearance: 'internal' };

type Answer = { status: number; body: { result?: Record<string, unknown>; error?: { code: number; message: string; data?: unknown } } };
type InputRequests = Record<string, { method: string; params: Record<string, unknown> }>;

const textOf = (result: unknown) => (((result as { content?: Array<{ text?: string }> }).content) ?? []).map((c) => c.text).join('');
const requestsOf = (answer: Answer) => (answer.body.result?.['inputRequests'] ?? {}) as InputRequests;
const stateOf = (answer: Answer) => answer.body.result?.['requestState'] as string;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('upstream elicitation and sampling during a 2026-07-28 tools/call', () => {
  const logger = createLogger('e2e', 'error');
  const stops: Array<() => Promise<void>> = [];
  let urls: { registry: string; mcp: string; audit: string };
  let ledger: Stateless2026Upstream;
  let nextId = 1;

  async function call(name: string, args: Record<string, unknown>, capabilities: Record<string, unknown>, retry: { inputResponses?: unknown; requestState?: string } = {}, who = ALICE): Promise<Answer> {
    const _meta = { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': capabilities, 'io.modelcontextprotocol/clientInfo': { name: 'input-2026', version: '1' } };
    const body = { jsonrpc: '2.0', id: (nextId += 1), method: 'tools/call', params: { name, arguments: args, _meta, ...retry } };
    const headers = {
      authorization: `Bearer ${await token(who)}`, 'content-type': 'application/json', accept: ACCEPT_BOTH,
      'mcp-protocol-version': V, 'mcp-method': 'tools/call', 'mcp-name': name,
    };
    const answer = await raw(urls.mcp, { headers, body: JSON.stringify(body) });
    return { status: answer.status, body: JSON.parse(answer.text) as Answer['body'] };
  }

  async function trail(query: string): Promise<Array<Record<string, unknown>>> {
    const r = await http('GET', `${urls.audit}/v1/audit?${query}`, await token(ADMIN));
    return (r.body.entries as Array<Record<string, unknown>> | undefined) ?? [];
  }

  /** The one trail entry `query` finds, once audit has it (never two: a call is recorded once). */
  async function trailOnce(query: string, what: string): Promise<Record<string, unknown>> {
    const entries = await waitFor(async () => {
      const found = await trail(query);
      return found.length > 0 ? found : undefined;
    }, what);
    expect(entries).toHaveLength(1);
    return entries[0];
  }

  beforeAll(async () => {
    const db = await createTestDatabase();
    stops.push(db.drop);
    const env = { ...testEstateEnv(), ESTATE_INPUT_PARK_TTL_SECONDS: String(PARK_TTL_SECONDS) };
    const estate = await composeEstate({ env, databaseUrl: db.url, logger, services: ['registry', 'discovery', 'audit', 'edge'] });
    stops.push(estate.stop);
    const { registry, audit, edge } = estate;
    if (!registry || !audit || !edge) throw new Error('the estate started without one of its services');
    urls = { registry: registry.url, mcp: edge.mcpUrl, audit: audit.url };
    const admin = await token(ADMIN);
    const notes = await startNotesServer({ name: 'notes' });
    stops.unshift(notes.close);
    const panel = await startNotesServer({ name: 'panel', create: createInterviewerServer });
    stops.unshift(panel.close);
    ledger = await startStateless2026Upstream();
    stops.unshift(ledger.close);
    const servers = [
      { name: 'notes', namespace: 'notes', url: notes.url, owner: 'notes-team', allowSampling: true, allowElicitation: true },
      { name: 'panel', namespace: 'panel', url: panel.url, owner: 'interview-team', allowSampling: true, allowElicitation: true },
      { name: 'ledger', url: ledger.url, owner: 'ledger-team', allowElicitation: true },
    ];
    for (const server of servers) expect((await http('POST', `${urls.registry}/v1/servers`, admin, server)).status).toBe(201);
    const specs = [...notesSpecs('notes', 'notes', 'notes:read'), ...interviewerSpecs('panel', 'notes:read'), ...ledgerSpecs('ledger')];
    for (const spec of specs) expect((await http('POST', `${urls.registry}/v1/tools`, admin, spec)).status).toBe(201);
    await waitFor(async () => (specs.every((s) => edge.replica.get(s.name)) ? true : undefined), 'every tool in the edge catalog');
  }, 60000);

  afterAll(async () => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  });

  it("answers with input_required carrying the upstream's elicitation, and the retry with the answer gets the tool's result", async () => {
    const asked = await call('notes.ask-user', { question: 'a title, please' }, { elicitation: { form: {} } });
    expect(asked.status).toBe(200);
    expect(asked.body.result).toMatchObject({ resultType: 'input_required' });
    const [[key, request]] = Object.entries(requestsOf(asked));
    expect(request).toMatchObject({ method: 'elicitation/create', params: { message: 'a title, please', requestedSchema: { properties: { title: { type: 'string' } } } } });
    expect(typeof stateOf(asked)).toBe('string');

    // A malformed answer is refused with its path and spends nothing: the same state still works.
    const malformed = await call('notes.ask-user', { question: 'a title, please' }, { elicitation: { form: {} } }, { inputResponses: { [key]: { action: 'maybe' } }, requestState: stateOf(asked) });
    expect(malformed.body.error).toMatchObject({ code: -32602 });
    expect(malformed.body.error?.message).toContain(`params.inputResponses.${key}.action`);

    const done = await call('notes.ask-user', { question: 'a title, please' }, { elicitation: { form: {} } }, { inputResponses: { [key]: { action: 'accept', content: { title: 'Dune' } } }, requestState: stateOf(asked) });
    expect(done.body.error).toBeUndefined();
    expect(done.body.result).toMatchObject({ resultType: 'complete' });
    expect(textOf(done.body.result)).toBe('user said: Dune');

    // The same state again: the call it continued is over.
    const replayed = await call('notes.ask-user', { question: 'a title, please' }, { elicitation: { form: {} } }, { inputResponses: { [key]: { action: 'accept', content: { title: 'Dune' } } }, requestState: stateOf(asked) });
    expect(replayed.body.error).toMatchObject({ code: -32602 });
    expect(replayed.body.error?.message).toContain('already used');

    expect(await trailOnce('principal=alice&type=UpstreamRequestRelayed&tool=notes.ask-user', 'the relayed elicitation under alice')).toMatchObject({ outcome: 'answered' });
    await trailOnce('principal=alice&type=ToolCallCompleted&tool=notes.ask-user&outcome=ok', 'the completed call under alice');
  });

  it("relays the upstream's sampling request the same way", async () => {
    const asked = await call('notes.ask-model', { question: 'capital of France?' }, { sampling: {} });
    const [[key, request]] = Object.entries(requestsOf(asked));
    expect(request).toMatchObject({ method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'capital of France?' } }] } });
    const answer = { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'test-model', stopReason: 'endTurn' };
    const done = await call('notes.ask-model', { question: 'capital of France?' }, { sampling: {} }, { inputResponses: { [key]: answer }, requestState: stateOf(asked) });
    expect(textOf(done.body.result)).toBe('model said: Paris');
  });

  it('holds the call across two rounds of questions, each answered by a retry', async () => {
    const capabilities = { elicitation: {}, sampling: {} };
    const args = { topic: 'tides' };
    const first = await call('panel.interview', args, capabilities);
    const [[nameKey, nameRequest]] = Object.entries(requestsOf(first));
    expect(nameRequest).toMatchObject({ method: 'elicitation/create', params: { message: 'Who is asking about tides?' } });

    // A retry that answers nothing is asked the same question again.
    const again = await call('panel.interview', args, capabilities, { requestState: stateOf(first) });
    expect(Object.entries(requestsOf(again))).toEqual([[nameKey, nameRequest]]);

    const second = await call('panel.interview', args, capabilities, { inputResponses: { [nameKey]: { action: 'accept', content: { name: 'Ada' } } }, requestState: stateOf(again) });
    const [[lineKey, lineRequest]] = Object.entries(requestsOf(second));
    expect(lineKey).not.toBe(nameKey);
    expect(lineRequest).toMatchObject({ method: 'sampling/createMessage', params: { messages: [{ content: { text: 'One line for Ada about tides.' } }] } });
    expect(stateOf(second)).not.toBe(stateOf(again));

    const line = { role: 'assistant', content: { type: 'text', text: 'the moon pulls' }, model: 'test-model' };
    const done = await call('panel.interview', args, capabilities, { inputResponses: { [lineKey]: line }, requestState: stateOf(second) });
    expect(textOf(done.body.result)).toBe('Ada asked about tides; the model said: the moon pulls');
  });

  it('refuses a state presented by another principal or for other arguments, and it still works for its own', async () => {
    const asked = await call('notes.ask-user', { question: 'for alice' }, { elicitation: {} });
    const [[key]] = Object.entries(requestsOf(asked));
    const retry = { inputResponses: { [key]: { action: 'accept', content: { title: 'mine' } } }, requestState: stateOf(asked) };
    const bob = await call('notes.ask-user', { question: 'for alice' }, { elicitation: {} }, retry, BOB);
    expect(bob.body.error).toEqual({ code: -32602, message: 'Invalid params: params.requestState: is not valid for this request; send the request again without it' });
    const alice = await call('notes.ask-user', { question: 'for alice' }, { elicitation: {} }, retry);
    expect(textOf(alice.body.result)).toBe('user said: mine');
    // For other arguments the state is not this call's: nothing is resumed, the tool runs afresh and asks its own question.
    const other = await call('notes.ask-user', { question: 'something else' }, { elicitation: {} }, retry);
    const [[otherKey, otherRequest]] = Object.entries(requestsOf(other));
    expect(otherRequest.params['message']).toBe('something else');
    const answered = await call('notes.ask-user', { question: 'something else' }, { elicitation: {} }, { inputResponses: { [otherKey]: { action: 'decline' } }, requestState: stateOf(other) });
    expect(textOf(answered.body.result)).toBe('user chose decline');
  });

  it("asks a second agent its own question while the first one's call is parked on the same upstream", async () => {
    const mine = await call('notes.ask-user', { question: 'for alice, parked' }, { elicitation: {} });
    const theirs = await call('notes.ask-user', { question: 'for bob' }, { elicitation: {} }, {}, BOB);
    const [[bobKey, bobRequest]] = Object.entries(requestsOf(theirs));
    expect(bobRequest.params['message']).toBe('for bob');
    const bobDone = await call('notes.ask-user', { question: 'for bob' }, { elicitation: {} }, { inputResponses: { [bobKey]: { action: 'accept', content: { title: 'bobs' } } }, requestState: stateOf(theirs) }, BOB);
    expect(textOf(bobDone.body.result)).toBe('user said: bobs');
    const [[aliceKey]] = Object.entries(requestsOf(mine));
    const aliceDone = await call('notes.ask-user', { question: 'for alice, parked' }, { elicitation: {} }, { inputResponses: { [aliceKey]: { action: 'accept', content: { title: 'alices' } } }, requestState: stateOf(mine) });
    expect(textOf(aliceDone.body.result)).toBe('user said: alices');
  });

  it('withdraws the question when the agent does not come back in time, records the call, and says the state expired', async () => {
    const args = { topic: 'patience' };
    const asked = await call('panel.interview', args, { elicitation: {}, sampling: {} });
    const [[key]] = Object.entries(requestsOf(asked));
    await sleep(PARK_TTL_SECONDS * 1000 + 500);
    const late = await call('panel.interview', args, { elicitation: {}, sampling: {} }, { inputResponses: { [key]: { action: 'accept', content: { name: 'late' } } }, requestState: stateOf(asked) });
    expect(late.body.error).toMatchObject({ code: -32602 });
    expect(late.body.error?.message).toContain('params.requestState: it expired');
    // The upstream heard the withdrawal and its tool ended: the call is in the trail as the pipeline records it.
    await trailOnce('principal=alice&type=ToolCallCompleted&tool=panel.interview&outcome=tool_error', 'the withdrawn call recorded as a tool error');
    expect(await trail('principal=alice&type=UpstreamRequestRelayed&tool=panel.interview&outcome=failed')).toHaveLength(1);
  });

  it('answers -32021 (HTTP 400) when the agent did not declare what the upstream asks for, and audits the refusal', async () => {
    const refused = await call('notes.ask-model', { question: 'undeclared' }, { elicitation: {} });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { sampling: {} } } });
    expect(refused.body.error?.message).toContain('sampling');
    const entries = await waitFor(async () => {
      const found = await trail('principal=alice&type=UpstreamRequestRefused&tool=notes.ask-model');
      return found.length === 1 ? found : undefined;
    }, 'the refused sampling request under alice');
    expect(entries[0]).toMatchObject({ outcome: 'refused:client_not_capable' });
  });

  it("relays a 2026-07-28 upstream's input_required through, under the edge's own sealed state", async () => {
    const args = { account: 'ACC-7' };
    const asked = await call('ledger.close-account', args, { elicitation: {} });
    const [[key, request]] = Object.entries(requestsOf(asked));
    expect(request).toMatchObject({ method: 'elicitation/create', params: { message: 'Close ACC-7? Give a reason.' } });
    const upstreamState = Buffer.from(JSON.stringify(args), 'utf8').toString('base64url');
    expect(stateOf(asked)).not.toBe(upstreamState);
    const done = await call('ledger.close-account', args, { elicitation: {} }, { inputResponses: { [key]: { action: 'accept', content: { reason: 'moving banks' } } }, requestState: stateOf(asked) });
    expect(textOf(done.body.result)).toBe('closed ACC-7: moving banks');
    // The upstream got its own state back with the answer, under its own key.
    const retried = ledger.seen.map((s) => s.body?.['params'] as Record<string, unknown> | undefined).filter((p) => p?.['name'] === 'close-account' && p['requestState'] !== undefined);
    expect(retried.at(-1)).toMatchObject({ requestState: upstreamState, inputResponses: { confirm: { action: 'accept', content: { reason: 'moving banks' } } } });
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
      expect(textOf(agent.body.result)).toContain('requests of more than one caller to it were in flight');
      // How many others were calling stays with the estate: the upstream may echo it to an agent.
      expect(textOf(agent.body.result)).not.toMatch(/\d+ callers/);
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
    expect(counted.body.result).toMatchObject({ resultType: 'complete' });
    expect(counted.body.result?.isError).toBeFalsy();
  });
});
