import { parseErrorObject } from './json-rpc-message.builder';
import type { JsonRpcErrorObject } from './json-rpc.types';

export type JsonParseResult =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: JsonRpcErrorObject };

/** Parses one incoming frame. Never throws: a bad frame becomes a -32700 error object. */
export function parseJson(text: string): JsonParseResult {
  if (text.trim() === '') {
    return { ok: false, error: parseErrorObject('the message is empty; expected a JSON value') };
  }
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (cause: unknown) {
    const detail = cause instanceof Error ? ` (${cause.message})` : '';
    return { ok: false, error: parseErrorObject(`the message is not valid JSON${detail}`) };
  }
}
