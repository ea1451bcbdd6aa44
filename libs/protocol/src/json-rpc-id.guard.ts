import type { JsonRpcId, JsonRpcParams } from './json-rpc.types';

/**
 * True for a string or a safe integer. Unsafe integers are refused because after `JSON.parse`
 * they no longer equal the sender's digits, so echoing them back would answer a different id.
 */
export function isJsonRpcId(value: unknown): value is JsonRpcId {
  return typeof value === 'string' || Number.isSafeInteger(value);
}

/** A JSON object: not null, not an array. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A response to a request, a result or an error: it answers an id. The one such check every transport uses. */
export function isJsonRpcResponse(message: unknown): boolean {
  return isJsonObject(message) && 'id' in message && ('result' in message || 'error' in message);
}

/** MCP params are named only: an object, never an array. */
export function isJsonRpcParams(value: unknown): value is JsonRpcParams {
  return isJsonObject(value);
}

/** A member counts as present only when it is an own property with a defined value. */
export function hasMember(object: Record<string, unknown>, key: string): boolean {
  return Object.hasOwn(object, key) && object[key] !== undefined;
}
