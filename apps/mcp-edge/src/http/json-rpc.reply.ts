import type { ServerResponse } from 'node:http';
import type { JsonRpcErrorObject, JsonRpcId } from '@estate/protocol';

/** One body for an unknown, expired, deleted or someone else's session, so none can be told apart. */
export const SESSION_NOT_FOUND: JsonRpcErrorObject = { code: -32001, message: 'Session not found' };

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** A JSON-RPC error response as the body of an HTTP refusal. */
export function rpcError(res: ServerResponse, status: number, id: JsonRpcId | null, error: JsonRpcErrorObject): void {
  sendJson(res, status, { jsonrpc: '2.0', id, error });
}
