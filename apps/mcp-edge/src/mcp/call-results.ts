import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ValidationError } from '@estate/contracts';
import type { FailureKind } from '../policy/retry.policy';

/** A tool execution error: the model reads the text and may act on it; it is not a protocol error. */
export function toolError(text: string, meta?: Record<string, unknown>): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }], ...(meta ? { _meta: meta } : {}) };
}

export function validationLines(errors: ValidationError[]): string[] {
  return errors.map((e) => `${e.path}: ${e.message} (${e.keyword})`);
}

export function rateLimitedResult(tool: string, limit: 'principal' | 'tool', retryAfterMs: number): CallToolResult {
  const who = limit === 'principal' ? 'your calls' : `calls to ${tool}`;
  return toolError(`Rate limit reached for ${who}. Retry after ${retryAfterMs} ms.`, { 'io.estate/retryAfterMs': retryAfterMs });
}

export function tooLargeResult(what: 'arguments' | 'result', tool: string, bytes: number, limit: number): CallToolResult {
  const text = what === 'arguments'
    ? `The arguments for ${tool} are ${bytes} bytes; the limit is ${limit} bytes. Send less data; the tool was not called.`
    : `The result of ${tool} was ${bytes} bytes; the limit is ${limit} bytes. Ask for less data (a narrower query).`;
  return toolError(text, { 'io.estate/limitBytes': limit, 'io.estate/sizeBytes': bytes });
}

const REJECTED_TOKEN: Record<string, string> = {
  unknown: 'The confirmation token is not valid (unknown or already used).',
  expired: 'The confirmation token has expired.',
  mismatch: 'The confirmation token was issued for different arguments or another tool; it is now spent.',
};

export function confirmationResult(tool: string, token: string, expiresAt: number, rejected?: string): CallToolResult {
  const expiry = new Date(expiresAt).toISOString();
  const lead = rejected ? `${REJECTED_TOKEN[rejected] ?? 'The confirmation token was refused.'} ` : '';
  const text = `${lead}${tool} is destructive and was not called. To confirm, call ${tool} again with exactly the same arguments and `
    + `_meta {"io.estate/confirm": "${token}"} before ${expiry}. The token works once.`;
  return toolError(text, { 'io.estate/confirmation': { token, expiresAt: expiry } });
}

/** A destructive call whose every argument key cannot be shown to the person asked is not asked about, nor run. */
export function unshowableArgumentsResult(tool: string, shortestLength: number, limit: number): CallToolResult {
  return toolError(
    `${tool} is destructive and was not called: its arguments cannot be shown in full to the person who must confirm them `
    + `(${shortestLength} characters even with every text cut short; the limit is ${limit}). Send fewer or shorter arguments.`,
    { 'io.estate/limitChars': limit, 'io.estate/sizeChars': shortestLength },
  );
}

export function declinedResult(tool: string, action: string): CallToolResult {
  return toolError(`The user did not confirm ${tool} (${action}); it was not called.`);
}

/** The estate's own words for each failure kind: never the upstream's (its message stays in the audit trail). */
const FAILURE_TEXT: Record<FailureKind, string> = {
  timeout: 'the upstream server did not answer in time',
  unreachable: 'the upstream server could not be reached',
  rejected: 'the upstream server refused the request',
  upstream_error: 'the upstream server failed',
};

/** `timeoutMs` is the edge's own limit, safe to say: a caller may ask for less work next time. */
export function upstreamFailureResult(tool: string, kind: FailureKind, ref: string, attempts: number, timeoutMs?: number): CallToolResult {
  const what = kind === 'timeout' && timeoutMs !== undefined ? `the upstream server did not answer within ${timeoutMs} ms` : FAILURE_TEXT[kind];
  return toolError(`${tool} failed: ${what} (ref ${ref}). Attempts: ${attempts}. The estate is up; you may retry later or tell the user.`, { 'io.estate/ref': ref });
}

export function brokenContractResult(tool: string, ref: string): CallToolResult {
  return toolError(`${tool} failed: the upstream server's answer did not match the tool's published output schema, so it was withheld (ref ${ref}).`, { 'io.estate/ref': ref });
}
