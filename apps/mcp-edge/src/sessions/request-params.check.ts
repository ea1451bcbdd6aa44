import { ClientRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { JsonRpcErrorObject, JsonRpcRequest } from '@estate/protocol';

interface RequestShape {
  safeParse(value: unknown): { success: true } | { success: false; error: { issues: Array<{ path: PropertyKey[]; message: string }> } };
}

/** The SDK's schema for each client request method it knows, keyed by method name. */
const SCHEMAS = new Map<string, RequestShape>(
  ClientRequestSchema.options.map((schema) => [String(schema.shape.method.value), schema as unknown as RequestShape]),
);

/**
 * Checks a request's params against the shape MCP defines for its method, before the SDK sees it.
 * The SDK parses params ahead of any handler and reports a mismatch as -32603 with the validator's
 * raw dump; a caller deserves -32602 and a short list of what is wrong where. Unknown methods pass
 * (the SDK answers them with -32601).
 */
export function checkRequestParams(request: JsonRpcRequest): JsonRpcErrorObject | null {
  const schema = SCHEMAS.get(request.method);
  if (!schema) return null;
  const checked = schema.safeParse(request);
  if (checked.success) return null;
  const details = checked.error.issues.slice(0, 10).map((issue) => `${issue.path.map(String).join('.') || 'params'}: ${issue.message}`);
  return { code: -32602, message: `Invalid params for ${request.method}: ${details.join('; ')}` };
}
