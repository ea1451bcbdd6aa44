import type { JsonRpcId } from './json-rpc.types';

/** Longest piece of peer-supplied text we echo back inside an error message. */
const MAX_ECHOED_LENGTH = 64;

/**
 * Names the JSON type of a value the way error messages talk about it. Numbers are split into
 * integer and float because that split is exactly what the id rule turns on.
 */
export function describeJsonType(value: unknown): string {
  if (value === undefined) return 'nothing (member missing)';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return describeNumber(value);
  return typeof value;
}

function describeNumber(value: number): string {
  if (!Number.isFinite(value)) return 'non-finite number';
  if (!Number.isInteger(value)) return 'float';
  return Number.isSafeInteger(value) ? 'integer' : 'integer beyond the safe range (±2^53-1)';
}

/** Like `describeJsonType`, but shows short strings verbatim: `got "1.0"` reads better than `got string`. */
export function describeJsonValue(value: unknown): string {
  return typeof value === 'string' ? quoteForMessage(value) : describeJsonType(value);
}

/** Quotes peer-supplied text for an error message, cut short so a huge value is never echoed. */
export function quoteForMessage(text: string): string {
  return JSON.stringify(truncateForMessage(text));
}

/** Cuts peer-supplied text to a length that is safe to put into an error message. */
export function truncateForMessage(text: string): string {
  return text.length > MAX_ECHOED_LENGTH ? `${text.slice(0, MAX_ECHOED_LENGTH)}…` : text;
}

/** How an id appears in messages: integers bare, strings quoted. */
export function formatId(id: JsonRpcId): string {
  return typeof id === 'number' ? String(id) : quoteForMessage(id);
}
