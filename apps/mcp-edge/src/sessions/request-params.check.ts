import { ClientRequestSchema, RELATED_TASK_META_KEY } from '@modelcontextprotocol/sdk/types.js';
import type { JsonRpcErrorObject, JsonRpcRequest } from '@estate/protocol';

interface RequestShape {
  safeParse(value: unknown): { success: true } | { success: false; error: { issues: Array<{ path: PropertyKey[]; message: string }> } };
}

/** The SDK's schema for each client request method it knows, keyed by method name. */
const SCHEMAS = new Map<string, RequestShape>(
  ClientRequestSchema.options.map((schema) => [String(schema.shape.method.value), schema as unknown as RequestShape]),
);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A `_meta` the SDK's request schema admits and that names no task (task requests stay with the SDK). */
function plainMeta(meta: unknown): boolean {
  if (meta === undefined) return true;
  if (!isPlainObject(meta) || RELATED_TASK_META_KEY in meta) return false;
  const token = meta.progressToken;
  return token === undefined || typeof token === 'string' || Number.isSafeInteger(token);
}

/**
 * tools/call or tools/list params the SDK's schema for the method certainly admits: a strict
 * subset of it, checked by hand because the schema was a visible share of the edge's CPU per call.
 * Anything else (a task, odd shapes) goes through the schema, which judges and words it as before.
 */
export function plainToolParams(method: string, params: unknown): boolean {
  if (method !== 'tools/call' && method !== 'tools/list') return false;
  if (params === undefined) return method === 'tools/list';
  if (!isPlainObject(params) || 'task' in params || !plainMeta(params._meta)) return false;
  if (method === 'tools/list') return params.cursor === undefined || typeof params.cursor === 'string';
  return typeof params.name === 'string' && (params.arguments === undefined || isPlainObject(params.arguments));
}

/**
 * Checks a request's params against the shape MCP defines for its method, before the SDK sees it.
 * The SDK parses params ahead of any handler and reports a mismatch as -32603 with the validator's
 * raw dump; a caller deserves -32602 and a short list of what is wrong where. Unknown methods pass
 * (the SDK answers them with -32601).
 */
export function checkRequestParams(request: JsonRpcRequest): JsonRpcErrorObject | null {
  if (plainToolParams(request.method, request.params)) return null;
  const schema = SCHEMAS.get(request.method);
  if (!schema) return null;
  const checked = schema.safeParse(request);
  if (checked.success) return null;
  // zod's "record" is JSON's object.
  const details = checked.error.issues.slice(0, 10).map((issue) => `${issue.path.map(String).join('.') || 'params'}: ${issue.message.replace('expected record', 'expected object')}`);
  return { code: -32602, message: `Invalid params for ${request.method}: ${details.join('; ')}` };
}
