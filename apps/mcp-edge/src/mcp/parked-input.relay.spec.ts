import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { InputRequiredSignal } from './input-required.signal';
import { checkAnswers, ParkedInputRelay, type InputAsker } from './parked-input.relay';
import { RequestStateSealer } from './request-state.sealer';
import { WireError } from './wire-error';

const KEY = 'k'.repeat(40);
const SERVER = { name: 'estate-edge', version: '0' };
const alice = { principal: { id: 'alice' }, tool: 'notes.ask-user', args: { question: 'title?' } };
const elicitation = { method: 'elicitation/create' as const, params: { mode: 'form', message: 'title?', requestedSchema: { type: 'object', properties: {} } } };

/** A tool that asks its question once and returns the answer's title. */
const asking = (asker: InputAsker): Promise<CallToolResult> =>
  asker.ask(elicitation).then((answer) => ({ content: [{ type: 'text', text: `title: ${String((answer['content'] as { title?: string } | undefined)?.title)}` }] }));

async function inputRequired(run: Promise<unknown>): Promise<{ key: string; state: string }> {
  const signal = await run.then(() => undefined, (error: unknown) => error);
  if (!(signal instanceof InputRequiredSignal)) throw new Error(`expected input_required, got ${String(signal)}`);
  const result = signal.result as { inputRequests: Record<string, unknown>; requestState: string };
  return { key: Object.keys(result.inputRequests)[0] ?? '', state: result.requestState };
}

async function wireError(run: Promise<unknown>): Promise<WireError> {
  const error = await run.then(() => undefined, (e: unknown) => e);
  if (!(error instanceof WireError)) throw new Error(`expected a wire error, got ${String(error)}`);
  return error;
}

describe('upstream questions relayed to a 2026-07-28 agent by parking the call', () => {
  let now = 1_000;
  const sealer = new RequestStateSealer(KEY, 300_000, () => now);

  it('answers the call with input_required and resumes it once with the answer', async () => {
    const relay = new ParkedInputRelay(sealer, 60_000, SERVER);
    const { key, state } = await inputRequired(relay.start(alice, { elicitation: {} }, asking));
    expect(relay.waiting).toBe(1);
    const inputs = { requestState: state, inputResponses: { [key]: { action: 'accept', content: { title: 'Dune' } } } };
    await expect(relay.resume(alice, inputs)).resolves.toEqual({ content: [{ type: 'text', text: 'title: Dune' }] });
    expect((await wireError(relay.resume(alice, inputs))).message).toContain('already used');
  });

  it('refuses a state from another principal with the one answer every refused state gets', async () => {
    const relay = new ParkedInputRelay(sealer, 60_000, SERVER);
    const { state } = await inputRequired(relay.start(alice, { elicitation: {} }, asking));
    const error = await wireError(relay.resume({ ...alice, principal: { id: 'mallory' } }, { requestState: state }));
    expect({ code: error.code, message: error.message }).toEqual({ code: -32602, message: 'Invalid params: params.requestState: is not valid for this request; send the request again without it' });
    expect(relay.waiting).toBe(1);
    relay.closeAll();
  });

  it('leaves a state sealed for other arguments (or a confirmation) to the pipeline', async () => {
    const relay = new ParkedInputRelay(sealer, 60_000, SERVER);
    const { state } = await inputRequired(relay.start(alice, { elicitation: {} }, asking));
    await expect(relay.resume({ ...alice, args: { question: 'other' } }, { requestState: state })).resolves.toBeUndefined();
    relay.closeAll();
  });

  it("says when the state's call waits on another copy of the edge", async () => {
    const issuing = new ParkedInputRelay(sealer, 60_000, SERVER);
    const other = new ParkedInputRelay(new RequestStateSealer(KEY, 300_000, () => now), 60_000, SERVER);
    const { state } = await inputRequired(issuing.start(alice, { elicitation: {} }, asking));
    const error = await wireError(other.resume(alice, { requestState: state }));
    expect(error.code).toBe(-32602);
    expect(error.message).toContain('waits on another copy of the edge');
    issuing.closeAll();
  });

  it('says the state expired once its time is up', async () => {
    const relay = new ParkedInputRelay(sealer, 1_000, SERVER);
    const { state } = await inputRequired(relay.start(alice, { elicitation: {} }, asking));
    now += 1_000;
    expect((await wireError(relay.resume(alice, { requestState: state }))).message).toContain('params.requestState: it expired');
    relay.closeAll();
  });

  it('answers at once with -32021 when the agent did not declare what the upstream asks for', async () => {
    const relay = new ParkedInputRelay(sealer, 60_000, SERVER);
    const run = relay.start(alice, { sampling: {} }, async (asker) => {
      const missing = asker.missing(elicitation);
      if (missing) asker.abandon(new WireError(missing.code, missing.message, missing.data));
      return new Promise<CallToolResult>(() => undefined);
    });
    const error = await wireError(run);
    expect({ code: error.code, data: error.data }).toEqual({ code: -32021, data: { requiredCapabilities: { elicitation: { form: {} } } } });
  });
});

describe('checking the answers of a retry', () => {
  const waiting = new Map([['elicitation-1', { method: 'elicitation/create' as const, params: {} }], ['sampling-2', { method: 'sampling/createMessage' as const, params: {} }]]);

  it('keeps the answers to waiting questions and ignores other keys', () => {
    const answers = checkAnswers(waiting, { 'elicitation-1': { action: 'decline' }, unrelated: { x: 1 } });
    expect([...answers.keys()]).toEqual(['elicitation-1']);
  });

  it('names the path of a malformed answer', () => {
    expect(() => checkAnswers(waiting, { 'sampling-2': { role: 'assistant', model: 'm' } })).toThrow(/Invalid params: params\.inputResponses\.sampling-2\.content: .*sampling\/createMessage/);
  });

  it("holds accepted elicitation content to the schema the upstream asked with; declines and cancels carry none", () => {
    const asked = new Map([['elicitation-1', { method: 'elicitation/create' as const, params: { message: 'name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } } }]]);
    expect(() => checkAnswers(asked, { 'elicitation-1': { action: 'accept', content: { name: 5 } } })).toThrow(/Invalid params: params\.inputResponses\.elicitation-1\.content: .*name.*string.*elicitation\/create/);
    expect(() => checkAnswers(asked, { 'elicitation-1': { action: 'accept', content: {} } })).toThrow(/required property 'name'/);
    expect(checkAnswers(asked, { 'elicitation-1': { action: 'accept', content: { name: 'Ada' } } }).get('elicitation-1')).toEqual({ action: 'accept', content: { name: 'Ada' } });
    expect(checkAnswers(asked, { 'elicitation-1': { action: 'decline' } }).size).toBe(1);
  });
});
