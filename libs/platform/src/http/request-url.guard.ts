import type { IncomingMessage, ServerResponse } from 'node:http';

/** Longest request target any route of ours needs; identifiers are bounded far below this. */
export const MAX_URL_LENGTH = 4096;

/**
 * Refuses, before routing, request targets no route can use: an encoded NUL (`%00`, which
 * PostgreSQL cannot store or compare), a percent sign not followed by two hex digits, a
 * percent-encoding that is not UTF-8, or an oversized target. Without this, such a value reaches
 * a query and comes back as a 500.
 */
export function requestUrlProblem(url: string): string | undefined {
  if (url.length > MAX_URL_LENGTH) return `the request target is longer than ${MAX_URL_LENGTH} characters`;
  if (/%00/.test(url)) return 'the request target holds an encoded NUL (%00)';
  if (/%(?![0-9A-Fa-f]{2})/.test(url)) return 'the request target holds a malformed percent-encoding';
  for (const part of url.split(/[/?&=]/)) {
    if (!part.includes('%')) continue;
    try {
      decodeURIComponent(part.replace(/\+/g, ' '));
    } catch {
      return 'the request target holds a percent-encoding that is not UTF-8';
    }
  }
  return undefined;
}

/** Express-style middleware answering 400 in the problem shape every service uses. */
export function guardRequestUrl(req: IncomingMessage, res: ServerResponse, next: () => void): void {
  const problem = requestUrlProblem(req.url ?? '/');
  if (problem === undefined) return next();
  res.statusCode = problem.startsWith('the request target is longer') ? 414 : 400;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.end(JSON.stringify({ error: res.statusCode === 414 ? 'URI_TOO_LONG' : 'INVALID_REQUEST', message: problem }));
}
