import { JSON_RPC_ERROR, type JsonRpcErrorObject } from './json-rpc.types';
import type { ClientCapabilities } from './stateless-revision.types';

/**
 * The error codes the stateless revision adds, each with the HTTP status it travels with. They
 * sit in -32020..-32099, the part of the JSON-RPC server range the specification keeps for
 * itself, so no other code from that part may ever be emitted.
 */
export const STATELESS_ERROR = {
  HeaderMismatch: { code: -32020, httpStatus: 400 },
  MissingRequiredClientCapability: { code: -32021, httpStatus: 400 },
  UnsupportedProtocolVersion: { code: -32022, httpStatus: 400 },
} as const;

export type StatelessErrorName = keyof typeof STATELESS_ERROR;

export type StatelessErrorCode = (typeof STATELESS_ERROR)[StatelessErrorName]['code'];

/** The range the specification reserves; an implementation may use only the codes it defines there. */
export const SPEC_RESERVED_ERROR_RANGE = { from: -32099, to: -32020 } as const;

/**
 * Codes older revisions used that a stateless answer must never carry, with what replaces them.
 * `null`: nothing replaces it (the situation is now an input_required result, not an error).
 */
export const RETIRED_ERROR_CODES = [
  { code: -32002, meaning: 'resource not found', lastRevision: '2025-11-25', replacedBy: JSON_RPC_ERROR.InvalidParams },
  { code: -32042, meaning: 'URL elicitation required', lastRevision: '2025-11-25', replacedBy: null },
] as const;

/** True for a code a stateless answer may carry: not retired, and inside the reserved range only when defined. */
export function isStatelessErrorCodeAllowed(code: number): boolean {
  if (RETIRED_ERROR_CODES.some((retired) => retired.code === code)) return false;
  const reserved = code >= SPEC_RESERVED_ERROR_RANGE.from && code <= SPEC_RESERVED_ERROR_RANGE.to;
  return !reserved || Object.values(STATELESS_ERROR).some((entry) => entry.code === code);
}

/** The code for "no such resource": the session revisions used -32002, the stateless one -32602. */
export function resourceNotFoundCode(era: 'legacy' | 'stateless'): number {
  return era === 'legacy' ? -32002 : JSON_RPC_ERROR.InvalidParams;
}

/**
 * HTTP status for a refusal made before any handler runs (the negotiator's): the client's
 * mistakes are 400, an unknown method 404 (its JSON-RPC body tells it from a server without this
 * endpoint), anything else 500. The three codes of STATELESS_ERROR are 400 wherever they arise;
 * an error a handler returns for a well-formed request (an unknown tool, say) is not meant here.
 */
export function httpStatusForStatelessError(code: number): number {
  if (code === JSON_RPC_ERROR.MethodNotFound) return 404;
  const clientMistakes: readonly number[] = [JSON_RPC_ERROR.ParseError, JSON_RPC_ERROR.InvalidRequest, JSON_RPC_ERROR.InvalidParams, ...Object.values(STATELESS_ERROR).map((entry) => entry.code)];
  return clientMistakes.includes(code) ? 400 : 500;
}

export function headerMismatchError(reason: string): JsonRpcErrorObject {
  return { code: STATELESS_ERROR.HeaderMismatch.code, message: `Header mismatch: ${reason}` };
}

export function unsupportedProtocolVersionError(requested: string, supported: readonly string[]): JsonRpcErrorObject {
  return {
    code: STATELESS_ERROR.UnsupportedProtocolVersion.code,
    message: 'Unsupported protocol version',
    data: { supported: [...supported], requested },
  };
}

/**
 * A session revision named on a request that has no session: the edge speaks it, but only after
 * initialize, so the versions listed are the ones usable as the request stands.
 */
export function sessionRevisionWithoutSessionError(requested: string, usableWithoutSession: readonly string[]): JsonRpcErrorObject {
  return {
    code: STATELESS_ERROR.UnsupportedProtocolVersion.code,
    message: `Unsupported protocol version without a session: ${requested} needs initialize (a session) first; without one, use ${usableWithoutSession.join(' or ')}`,
    data: { supported: [...usableWithoutSession], requested },
  };
}

export function missingClientCapabilityError(required: ClientCapabilities, what: string): JsonRpcErrorObject {
  return {
    code: STATELESS_ERROR.MissingRequiredClientCapability.code,
    message: `Missing required client capability: ${what}`,
    data: { requiredCapabilities: required },
  };
}

/** A -32602 whose message names the offending member by its path in the request. */
export function invalidParamsAt(path: string, reason: string): JsonRpcErrorObject {
  return { code: JSON_RPC_ERROR.InvalidParams, message: `Invalid params: ${path}: ${reason}` };
}
