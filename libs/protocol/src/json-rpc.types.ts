/**
 * JSON-RPC 2.0 message shapes as MCP uses them. MCP narrows plain JSON-RPC in three ways that
 * these types encode: params are always an object, a request id is never null, and an id is
 * a string or an integer (no fractions).
 */

export const JSONRPC_VERSION = '2.0' as const;

/** The reserved JSON-RPC error codes this library produces or recognises. */
export const JSON_RPC_ERROR = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
} as const;

export type JsonRpcErrorCode = (typeof JSON_RPC_ERROR)[keyof typeof JSON_RPC_ERROR];

/** A request id: a string or an integer. Checked at runtime by `isJsonRpcId`. */
export type JsonRpcId = string | number;

/** MCP only uses named parameters, so params is always a JSON object. */
export type JsonRpcParams = Readonly<Record<string, unknown>>;

export interface JsonRpcRequest {
  readonly jsonrpc: typeof JSONRPC_VERSION;
  readonly id: JsonRpcId;
  readonly method: string;
  readonly params?: JsonRpcParams;
}

export interface JsonRpcNotification {
  readonly jsonrpc: typeof JSONRPC_VERSION;
  readonly method: string;
  readonly params?: JsonRpcParams;
}

export interface JsonRpcSuccess {
  readonly jsonrpc: typeof JSONRPC_VERSION;
  readonly id: JsonRpcId;
  readonly result: unknown;
}

export interface JsonRpcErrorObject {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/** `id` is null only when the id of the offending message could not be determined. */
export interface JsonRpcErrorResponse {
  readonly jsonrpc: typeof JSONRPC_VERSION;
  readonly id: JsonRpcId | null;
  readonly error: JsonRpcErrorObject;
}

export type JsonRpcResponse = JsonRpcSuccess | JsonRpcErrorResponse;

export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;
