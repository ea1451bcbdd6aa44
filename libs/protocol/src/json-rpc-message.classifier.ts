import { hasMember, isJsonObject, isJsonRpcId } from './json-rpc-id.guard';
import { invalidRequestError } from './json-rpc-message.builder';
import {
  JSONRPC_VERSION,
  type JsonRpcErrorObject,
  type JsonRpcId,
  type JsonRpcNotification,
  type JsonRpcParams,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from './json-rpc.types';
import { describeJsonType, describeJsonValue } from './json-value.describer';

/**
 * What a refused message looked like. It decides who gets an answer: a notification never
 * does, and a response's id belongs to the other side's numbering, so it is not echoed.
 */
export type MessageShape = 'request' | 'notification' | 'response' | 'unknown';

export interface InvalidMessage {
  readonly kind: 'invalid';
  /** The message's own id when that id is valid, so a caller can address the refusal. */
  readonly id: JsonRpcId | null;
  readonly error: JsonRpcErrorObject;
  readonly shape: MessageShape;
}

export type MessageClassification =
  | { readonly kind: 'request'; readonly message: JsonRpcRequest }
  | { readonly kind: 'notification'; readonly message: JsonRpcNotification }
  | { readonly kind: 'response'; readonly message: JsonRpcResponse }
  | { readonly kind: 'batch'; readonly items: readonly unknown[] }
  | InvalidMessage;

type JsonObject = Record<string, unknown>;

/**
 * Sorts one parsed JSON value into a message kind, or says precisely why it is not a valid
 * MCP message. Batches are only recognised here; whether one is allowed depends on the
 * negotiated version (see `checkBatchAllowed`). Never throws.
 */
export function classifyMessage(value: unknown): MessageClassification {
  if (Array.isArray(value)) {
    return value.length === 0
      ? invalid(null, 'unknown', 'an empty batch is not a message; a batch needs at least one item')
      : { kind: 'batch', items: value };
  }
  if (!isJsonObject(value)) {
    return invalid(null, 'unknown', `a message must be a JSON object, got ${describeJsonType(value)}`);
  }
  const shape = shapeOf(value);
  const id = isJsonRpcId(value.id) ? value.id : null;
  const problem = findProblem(value, shape);
  return problem === null ? toValidClassification(value, shape, id) : invalid(id, shape, problem);
}

function invalid(id: JsonRpcId | null, shape: MessageShape, reason: string): InvalidMessage {
  return { kind: 'invalid', id, error: invalidRequestError(reason), shape };
}

function shapeOf(value: JsonObject): MessageShape {
  if (hasMember(value, 'method')) {
    if (hasMember(value, 'id')) return 'request';
    // Only a JSON-RPC 2.0 message that names a method by string is recognisably a notification;
    // JSON-RPC answers anything else (a numeric method, a jsonrpc other than "2.0" or none) with a
    // null-id error rather than dropping it unanswered.
    return typeof value.method === 'string' && value.jsonrpc === JSONRPC_VERSION ? 'notification' : 'unknown';
  }
  if (hasMember(value, 'result') || hasMember(value, 'error')) return 'response';
  return 'unknown';
}

function findProblem(value: JsonObject, shape: MessageShape): string | null {
  if (value.jsonrpc !== JSONRPC_VERSION) {
    return `jsonrpc must be "2.0", got ${describeJsonValue(value.jsonrpc)}`;
  }
  switch (shape) {
    case 'request':
      return findIdProblem(value.id) ?? findCallProblem(value);
    case 'notification':
      return findCallProblem(value);
    case 'response':
      return findResponseProblem(value);
    case 'unknown':
      return hasMember(value, 'method')
        ? findCallProblem(value)
        : 'the message has neither a method (request or notification) nor a result or error (response)';
  }
}

function findIdProblem(id: unknown): string | null {
  return isJsonRpcId(id) ? null : `id must be a string or an integer, got ${describeJsonType(id)}`;
}

function findCallProblem(value: JsonObject): string | null {
  if (typeof value.method !== 'string') {
    return `method must be a string, got ${describeJsonType(value.method)}`;
  }
  if (value.method === '') return 'method must not be empty';
  if (hasMember(value, 'params') && !isJsonObject(value.params)) {
    return `params must be an object when present (MCP uses named params only), got ${describeJsonType(value.params)}`;
  }
  return null;
}

function findResponseProblem(value: JsonObject): string | null {
  const hasResult = hasMember(value, 'result');
  if (hasResult && hasMember(value, 'error')) {
    return 'a response must carry exactly one of result and error, got both';
  }
  if (hasResult) return findIdProblem(value.id);
  // An error answer may have a null or absent id: the peer could not read ours.
  if (value.id !== null && value.id !== undefined && !isJsonRpcId(value.id)) {
    return `id must be a string, an integer or null in an error response, got ${describeJsonType(value.id)}`;
  }
  return findErrorObjectProblem(value.error);
}

function findErrorObjectProblem(error: unknown): string | null {
  if (!isJsonObject(error)) return `error must be an object, got ${describeJsonType(error)}`;
  if (!Number.isSafeInteger(error.code)) {
    return `error.code must be an integer, got ${describeJsonType(error.code)}`;
  }
  if (typeof error.message !== 'string') {
    return `error.message must be a string, got ${describeJsonType(error.message)}`;
  }
  return null;
}

/** Copies only the members the shape defines, so stray top-level members never travel on. */
function toValidClassification(
  value: JsonObject,
  shape: MessageShape,
  id: JsonRpcId | null,
): MessageClassification {
  const method = value.method as string;
  const params = hasMember(value, 'params') ? { params: value.params as JsonRpcParams } : {};
  if (shape === 'request') {
    return { kind: 'request', message: { jsonrpc: JSONRPC_VERSION, id: id as JsonRpcId, method, ...params } };
  }
  if (shape === 'notification') {
    return { kind: 'notification', message: { jsonrpc: JSONRPC_VERSION, method, ...params } };
  }
  return { kind: 'response', message: toResponse(value, id) };
}

function toResponse(value: JsonObject, id: JsonRpcId | null): JsonRpcResponse {
  if (hasMember(value, 'result')) {
    return { jsonrpc: JSONRPC_VERSION, id: id as JsonRpcId, result: value.result };
  }
  const error = value.error as JsonObject;
  const data = hasMember(error, 'data') ? { data: error.data } : {};
  const errorObject = { code: error.code as number, message: error.message as string, ...data };
  return { jsonrpc: JSONRPC_VERSION, id, error: errorObject };
}
