import { isJsonObject } from './json-rpc-id.guard';
import type { JsonRpcErrorObject } from './json-rpc.types';
import { memberPath } from './json-path.describer';
import { describeJsonType } from './json-value.describer';
import { invalidParamsAt } from './revision-error.table';

/** What a retry after input_required carries besides the original params. */
export interface RetryInputs {
  readonly inputResponses?: Readonly<Record<string, unknown>>;
  readonly requestState?: string;
}

export type RetryInputsResult = { readonly ok: true; readonly inputs: RetryInputs } | { readonly ok: false; readonly error: JsonRpcErrorObject };

/**
 * Reads `inputResponses` and `requestState` from a request's params (-32602 with the path when
 * mistyped). The state is returned as sent: it came from the client, so the caller verifies it
 * before trusting anything in it.
 */
export function parseRetryInputs(params: unknown): RetryInputsResult {
  if (!isJsonObject(params)) return { ok: true, inputs: {} };
  const responses = params['inputResponses'];
  const state = params['requestState'];
  if (responses !== undefined && !isJsonObject(responses)) return fail('params.inputResponses', `must be an object keyed like the inputRequests, got ${describeJsonType(responses)}`);
  for (const [key, value] of Object.entries(responses ?? {})) {
    if (!isJsonObject(value)) return fail(memberPath('params.inputResponses', key), `must be an object, got ${describeJsonType(value)}`);
  }
  if (state !== undefined && typeof state !== 'string') return fail('params.requestState', `must be a string, got ${describeJsonType(state)}`);
  return {
    ok: true,
    inputs: {
      ...(responses === undefined ? {} : { inputResponses: responses }),
      ...(state === undefined ? {} : { requestState: state }),
    },
  };
}

export type ElicitationAnswer =
  | { readonly kind: 'answered'; readonly action: 'accept' | 'decline' | 'cancel'; readonly content?: Readonly<Record<string, unknown>> }
  /** The key is absent: ask again rather than fail, the client may simply not have answered yet. */
  | { readonly kind: 'missing' }
  | { readonly kind: 'invalid'; readonly error: JsonRpcErrorObject };

const ACTIONS = ['accept', 'decline', 'cancel'] as const;

/** The user's answer to the elicitation the server asked under `key`. */
export function elicitationAnswer(inputs: RetryInputs, key: string): ElicitationAnswer {
  const answer = inputs.inputResponses?.[key];
  if (answer === undefined) return { kind: 'missing' };
  const path = memberPath('params.inputResponses', key);
  if (!isJsonObject(answer)) return { kind: 'invalid', error: invalidParamsAt(path, `must be an object, got ${describeJsonType(answer)}`) };
  const action = ACTIONS.find((known) => known === answer['action']);
  if (action === undefined) return { kind: 'invalid', error: invalidParamsAt(`${path}.action`, `must be one of ${ACTIONS.join(', ')}`) };
  const content = answer['content'];
  if (content !== undefined && !isJsonObject(content)) return { kind: 'invalid', error: invalidParamsAt(`${path}.content`, `must be an object, got ${describeJsonType(content)}`) };
  return content === undefined ? { kind: 'answered', action } : { kind: 'answered', action, content };
}

function fail(path: string, reason: string): RetryInputsResult {
  return { ok: false, error: invalidParamsAt(path, reason) };
}
