import { randomUUID } from 'node:crypto';
import { CreateMessageResultSchema, ElicitResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '@estate/contracts';
import {
  checkInputCapabilities, inputRequiredResult, requestStateRejectedError, type ClientCapabilities, type InputRequests, type JsonRpcErrorObject,
  type RequestStateBinding, type RetryInputs,
} from '@estate/protocol';
import { confirmationBinding } from '../policy/confirmation.policy';
import { principalKey } from '../policy/rate-limit.policy';
import { InputRequiredSignal } from './input-required.signal';
import { ParkedCalls } from './parked-calls.registry';
import type { RequestStateSealer } from './request-state.sealer';
import { UpstreamInputExchange, type UpstreamAsk } from './upstream-input.exchange';
import { WireError } from './wire-error';
import { sharedSchemaValidator } from '../sessions/shared-schema.validator';

/**
 * What a 2026-07-28 call in flight offers the proxy when its upstream asks something: whether the
 * agent declared what the question needs, a way to ask it, and a way to end the agent's request.
 */
export interface InputAsker {
  /** -32021 naming the capability the agent did not declare for `request`; null when it may be asked. */
  missing(request: UpstreamAsk): JsonRpcErrorObject | null;
  ask(request: UpstreamAsk): Promise<Record<string, unknown>>;
  /** Answers the agent's request with `error` now; the upstream call runs on to its end (and is recorded). */
  abandon(error: unknown): void;
  /** True while the call waits for its agent's retry: its upstream is blocked on the questions already asked. */
  parked(): boolean;
}

/** The call a tools/call targets, as far as a sealed state is bound to it. */
export interface RelayTarget {
  readonly principal: Pick<Principal, 'id' | 'tenant'>;
  readonly tool: unknown;
  readonly args: unknown;
}

/** What the sealed state names: the parked call, and the edge copy that holds it in memory. */
interface ParkedState {
  park?: unknown;
  copy?: unknown;
}

/** How a refused upstream question is answered when its agent never came back. */
const WITHDRAWN_CODE = -1;

/**
 * Relays an upstream's elicitation and sampling requests to the 2026-07-28 agent whose tools/call
 * caused them. The agent has no stream to be asked on, so its request is answered with an
 * input_required result carrying the questions, while the upstream call stays in flight, parked in
 * this copy's memory under a random id for a short time. The sealed requestState names the parked
 * call and is bound to principal, tool and arguments; the retry carrying it and the answers
 * resumes the call, and is answered with the call's result or the next questions.
 */
export class ParkedInputRelay {
  /** Which copy of the edge holds the parked calls; a state from another copy gets its own answer. */
  private readonly copy = randomUUID();
  private readonly parked: ParkedCalls<UpstreamInputExchange<CallToolResult>>;

  constructor(
    private readonly sealer: RequestStateSealer,
    ttlMs: number,
    private readonly serverInfo: { name: string; version: string },
  ) {
    const seconds = ttlMs / 1000;
    this.parked = new ParkedCalls(ttlMs, ({ exchange }) => {
      exchange.parked = false;
      exchange.withdraw(new WireError(WITHDRAWN_CODE, `the agent did not answer within ${seconds} s`));
    });
  }

  /** Calls parked on this copy now. */
  get waiting(): number {
    return this.parked.size;
  }

  /** Runs a fresh call; answers its result, or throws the input_required signal when the upstream asks first. */
  async start(target: RelayTarget, capabilities: ClientCapabilities, run: (asker: InputAsker) => Promise<CallToolResult>): Promise<CallToolResult> {
    const exchange = new UpstreamInputExchange<CallToolResult>();
    const asker: InputAsker = {
      missing: (request) => checkInputCapabilities(capabilities, { [request.method]: request } as InputRequests),
      ask: (request) => exchange.ask(request),
      abandon: (error) => exchange.abandon(error),
      parked: () => exchange.parked,
    };
    exchange.start(() => run(asker));
    return this.respond(target, exchange);
  }

  /**
   * Resumes the parked call a retry's state names, with the answers it carries. Undefined when the
   * state is sealed for another purpose (a confirmation): the pipeline judges those.
   */
  async resume(target: RelayTarget, inputs: RetryInputs): Promise<CallToolResult | undefined> {
    if (inputs.requestState === undefined) return undefined;
    const opened = this.sealer.open<ParkedState>(inputs.requestState, this.binding(target));
    if (!opened.ok) {
      if (opened.reason === 'other_request') return undefined;
      if (opened.reason === 'expired') throw stale(`it expired: the upstream's question waits at most ${this.parked.ttlMs / 1000} s for an answer, then it is withdrawn`);
      throw rejected();
    }
    const { park, copy } = opened.data;
    if (typeof park !== 'string') return undefined;
    if (copy !== this.copy) {
      throw stale('the call it continues waits on another copy of the edge, which this request did not reach; send retries that carry a requestState to the copy that issued it');
    }
    const principal = principalKey(target.principal);
    const call = this.parked.peek(park, principal);
    if (!call) throw stale('the call it continues is no longer waiting: this state was already used for a retry, or the question was withdrawn');
    const answers = checkAnswers(call.exchange.waiting(), inputs.inputResponses ?? {});
    // Checked before taking: a malformed answer changes nothing and the same state can be sent again.
    this.parked.take(park, principal);
    call.exchange.parked = false;
    for (const [key, answer] of answers) call.exchange.answer(key, answer);
    return this.respond(target, call.exchange);
  }

  /** Withdraws every parked call's questions (the edge is stopping). */
  closeAll(): void {
    this.parked.closeAll();
  }

  private async respond(target: RelayTarget, exchange: UpstreamInputExchange<CallToolResult>): Promise<CallToolResult> {
    const turn = await exchange.turn();
    if (turn.kind === 'done') return turn.result;
    if (turn.kind === 'failed') throw turn.error;
    const park = this.parked.park({ principal: principalKey(target.principal), exchange });
    exchange.parked = true;
    const requestState = this.sealer.seal(this.binding(target), { park, copy: this.copy }, this.parked.ttlMs);
    const inputRequests = Object.fromEntries(turn.asks) as InputRequests;
    throw new InputRequiredSignal(inputRequiredResult('tools/call', { inputRequests, requestState }, this.serverInfo));
  }

  /** Distinct from a confirmation's binding, so that neither state is taken for the other. */
  private binding(target: RelayTarget): RequestStateBinding {
    const principal = principalKey(target.principal);
    return { principal, method: 'tools/call', binding: `input:${confirmationBinding(principal, String(target.tool), target.args ?? {})}` };
  }
}

/**
 * The agent's answers to the questions still waiting, each checked against the result type its
 * question calls for (-32602 with the path otherwise). Keys nothing waits under are ignored.
 */
export function checkAnswers(waiting: ReadonlyMap<string, UpstreamAsk>, responses: Readonly<Record<string, unknown>>): Map<string, Record<string, unknown>> {
  const answers = new Map<string, Record<string, unknown>>();
  for (const [key, ask] of waiting) {
    if (responses[key] === undefined) continue;
    const schema = ask.method === 'sampling/createMessage' ? CreateMessageResultSchema : ElicitResultSchema;
    const parsed = schema.safeParse(responses[key]);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = ['params', 'inputResponses', key, ...(issue?.path ?? [])].join('.');
      throw new WireError(-32602, `Invalid params: ${where}: ${issue?.message ?? 'is not a valid answer'} (the answer to ${ask.method})`);
    }
    const answer = parsed.data as Record<string, unknown>;
    const off = ask.method === 'elicitation/create' ? contentOffItsSchema(ask, answer) : undefined;
    if (off !== undefined) throw new WireError(-32602, `Invalid params: ${['params', 'inputResponses', key, 'content'].join('.')}: ${off} (the answer to ${ask.method})`);
    answers.set(key, answer);
  }
  return answers;
}

/**
 * An accepted elicitation's content against the schema the upstream asked with: refused here,
 * with nothing spent, rather than relayed for the upstream to refuse (which used the parked call
 * up). A schema the validator cannot compile is left to the upstream to judge.
 */
function contentOffItsSchema(ask: UpstreamAsk, answer: Record<string, unknown>): string | undefined {
  const requested = ask.params.requestedSchema;
  if (answer.action !== 'accept' || typeof requested !== 'object' || requested === null) return undefined;
  let check: ReturnType<typeof sharedSchemaValidator.getValidator>;
  try {
    check = sharedSchemaValidator.getValidator(requested as Parameters<typeof sharedSchemaValidator.getValidator>[0]);
  } catch {
    return undefined;
  }
  const verdict = check(answer.content ?? {});
  return verdict.valid ? undefined : verdict.errorMessage ?? 'does not match the requested schema';
}

function stale(why: string): WireError {
  return new WireError(-32602, `Invalid params: params.requestState: ${why}. Send the request again without requestState and inputResponses to start the call afresh.`);
}

function rejected(): WireError {
  const error = requestStateRejectedError();
  return new WireError(error.code, error.message);
}
