import {
  ClientCapabilitiesSchema,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ImplementationSchema,
  JSONRPCErrorResponseSchema,
  ListRootsRequestSchema,
  LoggingLevelSchema,
  RequestMetaSchema,
  ResultSchema,
} from '@modelcontextprotocol/core';
import { z } from 'zod';

/*
 * The specs check our shapes against the zod schemas the official SDK package
 * `@modelcontextprotocol/core` publishes, so a misreading of the revision on our side shows up as
 * a disagreement with the SDK. Where the package has no schema for something the 2026-07-28
 * revision adds, the check below is written by hand from the revision's rules and says so.
 */

/** The SDK schema's complaints about `value`; empty when it conforms. */
export function shapeErrors(schema: z.ZodType, value: unknown): string[] {
  const parsed = schema.safeParse(value);
  return parsed.success ? [] : parsed.error.issues.map((issue) => `/${issue.path.map(String).join('/')} ${issue.message}`);
}

export function fits(schema: z.ZodType, value: unknown): boolean {
  return shapeErrors(schema, value).length === 0;
}

const VERSION = 'io.modelcontextprotocol/protocolVersion';
const CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
const CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
const LOG_LEVEL = 'io.modelcontextprotocol/logLevel';

/*
 * A stateless request's `_meta`. The SDK's RequestMetaSchema covers progressToken and lets other
 * keys through; it names none of the per-request keys, so they are added here by hand from the
 * revision: the version (a string) and the capabilities (the SDK's ClientCapabilitiesSchema) are
 * required on every request, the client's identity (ImplementationSchema) and the log level
 * (LoggingLevelSchema) are optional.
 */
export const StatelessRequestMetaSchema = RequestMetaSchema.extend({
  [VERSION]: z.string(),
  [CAPABILITIES]: ClientCapabilitiesSchema,
  [CLIENT_INFO]: ImplementationSchema.optional(),
  [LOG_LEVEL]: LoggingLevelSchema.optional(),
});

function asObject(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/* Hand-written (the SDK's ResultSchema has no resultType): every result of the revision says which kind it is. */
function resultTypeErrors(value: unknown, expected: 'complete' | 'input_required'): string[] {
  const kind = asObject(value)?.['resultType'];
  return kind === expected ? [] : [`/resultType must be "${expected}", got ${JSON.stringify(kind)}`];
}

/** The SDK schema for a result, plus the hand-written rule that it is marked complete. */
export function completeResultErrors(schema: z.ZodType, value: unknown): string[] {
  return [...shapeErrors(schema, value), ...resultTypeErrors(value, 'complete')];
}

/*
 * Hand-written (no SDK schema carries cache hints): a cacheable result states how long it stays
 * fresh in whole, non-negative milliseconds and whether it may be shared between principals.
 */
export function cacheHintErrors(value: unknown): string[] {
  const result = asObject(value) ?? {};
  const errors: string[] = [];
  const ttl = result['ttlMs'];
  if (typeof ttl !== 'number' || !Number.isSafeInteger(ttl) || ttl < 0) errors.push('/ttlMs must be a non-negative integer');
  if (result['cacheScope'] !== 'private' && result['cacheScope'] !== 'public') errors.push('/cacheScope must be "private" or "public"');
  return errors;
}

/*
 * Hand-written (the SDK exports no input_required result): a result of that kind, whose optional
 * inputRequests map names to requests the client can serve (sampling, roots or elicitation, each
 * checked with the SDK's request schema) and whose optional requestState is an opaque string.
 */
export function inputRequiredResultErrors(value: unknown): string[] {
  const result = asObject(value);
  if (result === undefined) return ['/ must be an object'];
  const errors = [...shapeErrors(ResultSchema, result), ...resultTypeErrors(result, 'input_required')];
  if ('requestState' in result && typeof result['requestState'] !== 'string') errors.push('/requestState must be a string');
  if (!('inputRequests' in result)) return errors;
  const requests = asObject(result['inputRequests']);
  if (requests === undefined) return [...errors, '/inputRequests must be an object'];
  for (const [name, request] of Object.entries(requests)) {
    const servable = [CreateMessageRequestSchema, ListRootsRequestSchema, ElicitRequestSchema].some((schema) => fits(schema, request));
    if (!servable) errors.push(`/inputRequests/${name} must be a sampling, roots or elicitation request`);
  }
  return errors;
}

type ErrorData = Record<string, unknown> | undefined;

/*
 * Hand-written on top of the SDK's JSONRPCErrorResponseSchema (the package has no schema for the
 * revision's three new errors): each has its own code, and two of them a required data shape.
 */
const REVISION_ERRORS = {
  HeaderMismatch: { code: -32020, data: (): string[] => [] },
  MissingRequiredClientCapability: {
    code: -32021,
    data: (data: ErrorData): string[] =>
      asObject(data?.['requiredCapabilities']) !== undefined && fits(ClientCapabilitiesSchema, data?.['requiredCapabilities']) ? [] : ['/error/data/requiredCapabilities must be client capabilities'],
  },
  UnsupportedProtocolVersion: {
    code: -32022,
    data: (data: ErrorData): string[] => [
      ...(typeof data?.['requested'] === 'string' ? [] : ['/error/data/requested must be a string']),
      ...(Array.isArray(data?.['supported']) && data['supported'].every((version) => typeof version === 'string') ? [] : ['/error/data/supported must be a list of strings']),
    ],
  },
};

export function revisionErrorErrors(kind: keyof typeof REVISION_ERRORS, response: unknown): string[] {
  const errors = shapeErrors(JSONRPCErrorResponseSchema, response);
  if (errors.length > 0) return errors;
  const error = asObject(asObject(response)?.['error']);
  const rule = REVISION_ERRORS[kind];
  if (error?.['code'] !== rule.code) return [`/error/code must be ${rule.code}`];
  return rule.data(asObject(error['data']));
}
