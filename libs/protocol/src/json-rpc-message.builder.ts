import { isJsonRpcId, isJsonRpcParams } from './json-rpc-id.guard';
import {
  JSON_RPC_ERROR,
  JSONRPC_VERSION,
  type JsonRpcErrorObject,
  type JsonRpcErrorResponse,
  type JsonRpcId,
  type JsonRpcNotification,
  type JsonRpcParams,
  type JsonRpcRequest,
  type JsonRpcSuccess,
} from './json-rpc.types';

// The builders refuse arguments that would produce a message our own classifier rejects:
// that is a bug in the caller, so it fails loudly instead of going out on the wire.

function assertId(id: unknown, builder: string): void {
  if (!isJsonRpcId(id)) {
    throw new TypeError(`${builder}: id must be a string or a safe integer`);
  }
}

function assertParams(params: unknown, builder: string): void {
  if (params !== undefined && !isJsonRpcParams(params)) {
    throw new TypeError(`${builder}: params must be an object when given`);
  }
}

export function makeRequest(id: JsonRpcId, method: string, params?: JsonRpcParams): JsonRpcRequest {
  assertId(id, 'makeRequest');
  assertParams(params, 'makeRequest');
  const base = { jsonrpc: JSONRPC_VERSION, id, method };
  return params === undefined ? base : { ...base, params };
}

export function makeNotification(method: string, params?: JsonRpcParams): JsonRpcNotification {
  assertParams(params, 'makeNotification');
  const base = { jsonrpc: JSONRPC_VERSION, method };
  return params === undefined ? base : { ...base, params };
}

export function makeResult(id: JsonRpcId, result: unknown): JsonRpcSuccess {
  assertId(id, 'makeResult');
  return { jsonrpc: JSONRPC_VERSION, id, result };
}

/** Builds the error object alone, for callers that put it into a response later. */
export function makeErrorObject(code: number, message: string, data?: unknown): JsonRpcErrorObject {
  if (!Number.isSafeInteger(code)) {
    throw new TypeError('makeError: code must be an integer');
  }
  return data === undefined ? { code, message } : { code, message, data };
}

export function makeError(
  id: JsonRpcId | null,
  code: number,
  message: string,
  data?: unknown,
): JsonRpcErrorResponse {
  if (id !== null) assertId(id, 'makeError');
  return { jsonrpc: JSONRPC_VERSION, id, error: makeErrorObject(code, message, data) };
}

/** Wraps an error object (for example one from the lifecycle) into a response. */
export function toErrorResponse(id: JsonRpcId | null, error: JsonRpcErrorObject): JsonRpcErrorResponse {
  return makeError(id, error.code, error.message, error.data);
}

/** A -32600 error whose message states the reason after a fixed prefix. */
export function invalidRequestError(reason: string): JsonRpcErrorObject {
  return { code: JSON_RPC_ERROR.InvalidRequest, message: `Invalid Request: ${reason}` };
}

/** A -32700 error whose message states the reason after a fixed prefix. */
export function parseErrorObject(reason: string): JsonRpcErrorObject {
  return { code: JSON_RPC_ERROR.ParseError, message: `Parse error: ${reason}` };
}
