import { isJsonObject } from './json-rpc-id.guard';
import type { JsonRpcErrorObject } from './json-rpc.types';
import { missingClientCapabilityError } from './revision-error.table';
import { withServerInfo } from './stateless-result.builder';
import type { ClientCapabilities, Implementation } from './stateless-revision.types';

/*
 * In the stateless revision a server never sends the client a request of its own. When it needs
 * the user (a confirmation, a relayed elicitation) it answers with `resultType: "input_required"`
 * and the client retries the original request with the answers. These builders make that answer.
 */

/** The only requests that may be answered with input_required. */
export const INPUT_REQUIRED_METHODS = ['tools/call', 'prompts/get', 'resources/read'] as const;

/** What a server may ask the client for inside an input_required result. */
export const INPUT_REQUEST_METHODS = ['elicitation/create', 'sampling/createMessage', 'roots/list'] as const;

export type InputRequestMethod = (typeof INPUT_REQUEST_METHODS)[number];

export interface InputRequest {
  readonly method: InputRequestMethod;
  readonly params?: Readonly<Record<string, unknown>>;
}

export type InputRequests = Readonly<Record<string, InputRequest>>;

export interface InputRequired {
  readonly inputRequests?: InputRequests;
  /** Opaque to the client; the edge must protect it (HMAC or AEAD) when it decides anything. */
  readonly requestState?: string;
}

export function isInputRequiredMethod(method: string): boolean {
  return INPUT_REQUIRED_METHODS.some((allowed) => allowed === method);
}

/**
 * An input_required answer to `method`. Throws on a caller bug: a method that may not ask, an
 * answer asking for nothing and carrying no state, or an input request of a kind that does not exist.
 */
export function inputRequiredResult(method: string, input: InputRequired, serverInfo?: Implementation): Record<string, unknown> {
  if (!isInputRequiredMethod(method)) throw new TypeError(`inputRequiredResult: ${method} may not answer with input_required`);
  if (input.inputRequests === undefined && input.requestState === undefined) throw new TypeError('inputRequiredResult: give inputRequests, requestState or both');
  for (const [key, request] of Object.entries(input.inputRequests ?? {})) {
    if (key === '') throw new TypeError('inputRequiredResult: an input request key must not be empty');
    if (!INPUT_REQUEST_METHODS.includes(request.method)) throw new TypeError(`inputRequiredResult: ${String(request.method)} is not an input request`);
  }
  // No cache hints: an interim answer is never cacheable.
  const result: Record<string, unknown> = {
    resultType: 'input_required',
    ...(input.inputRequests === undefined ? {} : { inputRequests: input.inputRequests }),
    ...(input.requestState === undefined ? {} : { requestState: input.requestState }),
  };
  return serverInfo === undefined ? result : withServerInfo(result, serverInfo);
}

/**
 * The question the edge asks before a destructive tool runs: a form with no fields, so the
 * user's answer is only accept, decline or cancel.
 */
export function confirmationRequest(message: string): InputRequest {
  return { method: 'elicitation/create', params: { mode: 'form', message, requestedSchema: { type: 'object', properties: {} } } };
}

/**
 * An upstream's elicitation, checked before the edge passes it on to the client: form mode needs
 * a flat object schema, URL mode a URL. Returns the input request, or why it cannot be relayed.
 */
export function relayedElicitation(params: unknown): { ok: true; request: InputRequest } | { ok: false; reason: string } {
  if (!isJsonObject(params)) return { ok: false, reason: 'elicitation params must be an object' };
  if (typeof params['message'] !== 'string') return { ok: false, reason: 'elicitation params.message must be a string' };
  const mode = params['mode'] ?? 'form';
  if (mode === 'url') {
    if (typeof params['url'] !== 'string') return { ok: false, reason: 'a URL-mode elicitation needs params.url as a string' };
  } else if (mode === 'form') {
    const schema = params['requestedSchema'];
    if (!isJsonObject(schema) || schema['type'] !== 'object' || !isJsonObject(schema['properties'])) {
      return { ok: false, reason: 'a form-mode elicitation needs params.requestedSchema with type "object" and properties' };
    }
  } else {
    return { ok: false, reason: `elicitation mode must be "form" or "url", got ${JSON.stringify(mode)}` };
  }
  // Only the members elicitation defines go on: an upstream's extras must not reach the client.
  const { message, url, requestedSchema } = params;
  const kept = mode === 'url' ? { mode, message, url } : { mode, message, requestedSchema };
  return { ok: true, request: { method: 'elicitation/create', params: kept } };
}

/** The client capabilities a set of input requests needs; empty when it needs none. */
export function requiredCapabilities(inputRequests: InputRequests): ClientCapabilities {
  const needed: { elicitation?: { form?: object; url?: object }; sampling?: object; roots?: object } = {};
  for (const request of Object.values(inputRequests)) {
    if (request.method === 'sampling/createMessage') needed.sampling = {};
    if (request.method === 'roots/list') needed.roots = {};
    if (request.method === 'elicitation/create') {
      const mode = request.params?.['mode'] === 'url' ? 'url' : 'form';
      needed.elicitation = { ...needed.elicitation, [mode]: {} };
    }
  }
  return needed as ClientCapabilities;
}

/**
 * -32021 when the request did not declare a capability the input requests need, else null. An
 * `elicitation` capability with neither mode named means form mode only.
 */
export function checkInputCapabilities(declared: ClientCapabilities, inputRequests: InputRequests): JsonRpcErrorObject | null {
  const needed = requiredCapabilities(inputRequests);
  const missing: Record<string, unknown> = {};
  if (needed.sampling !== undefined && !isJsonObject(declared.sampling)) missing['sampling'] = {};
  if (needed.roots !== undefined && !isJsonObject(declared.roots)) missing['roots'] = {};
  const modes = Object.keys(needed.elicitation ?? {}).filter((mode) => !declaresElicitationMode(declared, mode as 'form' | 'url'));
  if (modes.length > 0) missing['elicitation'] = Object.fromEntries(modes.map((mode) => [mode, {}]));
  const names = Object.keys(missing);
  if (names.length === 0) return null;
  const described = names.map((name) => (name === 'elicitation' ? modes.map((mode) => `elicitation.${mode}`).join(', ') : name)).join(', ');
  return missingClientCapabilityError(missing as ClientCapabilities, described);
}

export function declaresElicitationMode(declared: ClientCapabilities, mode: 'form' | 'url'): boolean {
  const elicitation = declared.elicitation;
  if (!isJsonObject(elicitation)) return false;
  if (isJsonObject(elicitation[mode])) return true;
  return mode === 'form' && elicitation['form'] === undefined && elicitation['url'] === undefined;
}
