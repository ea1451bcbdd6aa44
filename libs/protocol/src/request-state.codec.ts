import { decodeText, encodeText } from './base64.codec';
import { isJsonObject } from './json-rpc-id.guard';
import type { JsonRpcErrorObject } from './json-rpc.types';
import { invalidParamsAt } from './revision-error.table';

/*
 * `requestState` goes out in an input_required result and comes back on the retry through the
 * client, so it is attacker-controlled input. The edge seals what it needs in it (for whom, for
 * which request, until when) under a MAC. The MAC function is a port: this library computes no
 * cryptography and reads no clock, the caller passes both in.
 */

/** A keyed MAC over text (e.g. HMAC-SHA-256 as base64url), supplied by the host. */
export type StateMac = (text: string) => string;

export interface RequestStateBinding {
  /** Who the state was issued to; a different principal may not present it. */
  readonly principal: string;
  /** The request it belongs to: the method and a digest of the params that matter (tool, arguments). */
  readonly method: string;
  readonly binding: string;
}

export interface SealedState<T> extends RequestStateBinding {
  /** Epoch milliseconds after which the state is refused. */
  readonly expiresAt: number;
  /** What the server needs back on the retry (an upstream's own state, an elicitation key…). */
  readonly data: T;
}

const VERSION = 'v1';

/** The opaque `requestState` string for `state`. */
export function sealRequestState<T>(state: SealedState<T>, mac: StateMac): string {
  const body = encodeText(JSON.stringify({ p: state.principal, m: state.method, b: state.binding, x: state.expiresAt, d: state.data }), 'url');
  const signed = `${VERSION}.${body}`;
  return `${signed}.${mac(signed)}`;
}

/** Why a presented state was refused; for logs and audit only, the client always sees one answer. */
export type StateRejection = 'malformed' | 'forged' | 'other_principal' | 'other_request' | 'expired';

export type OpenedState<T> = { readonly ok: true; readonly data: T } | { readonly ok: false; readonly reason: StateRejection };

/**
 * Checks a presented `requestState` against who is asking, for what, and when. Checks run in an
 * order that reads nothing unauthenticated: the MAC first, then the binding, then the expiry.
 */
export function openRequestState<T = unknown>(presented: string, mac: StateMac, expected: RequestStateBinding, now: number): OpenedState<T> {
  const parts = presented.split('.');
  if (parts.length !== 3 || parts[0] !== VERSION) return { ok: false, reason: 'malformed' };
  const [, body = '', tag = ''] = parts;
  if (!constantTimeEqual(mac(`${VERSION}.${body}`), tag)) return { ok: false, reason: 'forged' };
  const payload = parsePayload(decodeText(body, 'url'));
  if (payload === null) return { ok: false, reason: 'malformed' };
  if (payload['p'] !== expected.principal) return { ok: false, reason: 'other_principal' };
  if (payload['m'] !== expected.method || payload['b'] !== expected.binding) return { ok: false, reason: 'other_request' };
  if (typeof payload['x'] !== 'number' || now >= payload['x']) return { ok: false, reason: 'expired' };
  return { ok: true, data: payload['d'] as T };
}

/** The one error every refused state gets, so a client cannot probe which check failed. */
export function requestStateRejectedError(): JsonRpcErrorObject {
  return invalidParamsAt('params.requestState', 'is not valid for this request; send the request again without it');
}

function parsePayload(text: string | null): Record<string, unknown> | null {
  if (text === null) return null;
  try {
    const value: unknown = JSON.parse(text);
    return isJsonObject(value) ? value : null;
  } catch {
    return null;
  }
}

/** Compares without stopping at the first difference, so timing does not reveal a MAC prefix. */
function constantTimeEqual(a: string, b: string): boolean {
  let difference = a.length ^ b.length;
  for (let i = 0; i < a.length; i += 1) difference |= a.charCodeAt(i) ^ b.charCodeAt(i % Math.max(b.length, 1));
  return difference === 0;
}
