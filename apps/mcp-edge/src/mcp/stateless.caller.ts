import { randomUUID } from 'node:crypto';
import type { LoggingLevel } from '@modelcontextprotocol/sdk/types.js';
import type { Pins } from '@estate/catalog';
import type { Principal } from '@estate/contracts';
import {
  confirmationRequest, declaresElicitationMode, elicitationAnswer, inputRequiredResult, requestStateRejectedError,
  type RequestMeta, type RetryInputs,
} from '@estate/protocol';
import { principalKey } from '../policy/rate-limit.policy';
import type { CallerContext, ConfirmAnswer, ConfirmQuestion, Confirmer } from './caller.context';
import { InputRequiredSignal } from './input-required.signal';
import type { RequestStateSealer } from './request-state.sealer';
import { WireError } from './wire-error';

/** The key the confirmation question is asked under in `inputRequests` (and answered under in `inputResponses`). */
export const CONFIRM_INPUT_KEY = 'io.estate/confirm';

export interface StatelessCallerOptions {
  readonly id: string;
  readonly principal: Principal;
  readonly meta: RequestMeta;
  readonly inputs: RetryInputs;
  readonly pins: Pins;
  readonly sealer: RequestStateSealer;
  readonly serverInfo: { name: string; version: string };
}

/**
 * A single 2026-07-28 request as the pipeline's caller. It holds nothing between requests: what
 * a confirmation needs across the round trip travels in the sealed `requestState`.
 */
export class StatelessCaller implements CallerContext {
  readonly era = 'stateless' as const;
  readonly id: string;
  readonly principal: Principal;
  readonly protocolVersion: string;
  readonly pins: Pins;
  readonly deprecationWarnings = new Set<string>();
  readonly logLevel?: LoggingLevel;
  readonly confirmer: Confirmer;

  constructor(options: StatelessCallerOptions) {
    this.id = options.id;
    this.principal = options.principal;
    this.protocolVersion = options.meta.protocolVersion;
    this.pins = options.pins;
    this.logLevel = options.meta.logLevel;
    this.confirmer = new InputRequiredConfirmer(options);
  }
}

/**
 * Confirmation by input_required: the first request is answered with the question and a sealed
 * state bound to principal, tool and arguments; the retry carries the state and the user's
 * answer. An answer without a valid state is never taken: anyone can write `accept`.
 */
class InputRequiredConfirmer implements Confirmer {
  constructor(private readonly options: StatelessCallerOptions) {}

  canAsk(): boolean {
    return declaresElicitationMode(this.options.meta.clientCapabilities, 'form');
  }

  async ask(question: ConfirmQuestion): Promise<ConfirmAnswer> {
    const { inputs, sealer } = this.options;
    const binding = { principal: principalKey(this.options.principal), method: 'tools/call', binding: question.binding };
    if (inputs.requestState !== undefined) {
      const opened = sealer.open<{ nonce?: string }>(inputs.requestState, binding);
      if (!opened.ok) throw rejected();
      const answer = elicitationAnswer(inputs, CONFIRM_INPUT_KEY);
      if (answer.kind === 'invalid') throw new WireError(answer.error.code, answer.error.message);
      if (answer.kind === 'answered') {
        // One confirmation, one call: the same accepted retry sent again is refused.
        if (typeof opened.data.nonce !== 'string' || !(await sealer.spendOnce(opened.data.nonce))) throw rejected();
        return answer.action;
      }
    }
    const requestState = sealer.seal(binding, { ask: CONFIRM_INPUT_KEY, nonce: randomUUID() });
    throw new InputRequiredSignal(inputRequiredResult('tools/call', { inputRequests: { [CONFIRM_INPUT_KEY]: confirmationRequest(question.message) }, requestState }, this.options.serverInfo));
  }
}

function rejected(): WireError {
  const error = requestStateRejectedError();
  return new WireError(error.code, error.message);
}
