import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { Logger } from '@estate/platform';
import type { ConsoleConfig } from './config';

type Service = keyof ConsoleConfig['upstreams'];

/** The only request headers that cross: the caller's token and what the body and stream need. */
const FORWARDED_REQUEST = ['authorization', 'content-type', 'accept', 'last-event-id', 'x-correlation-id'];
const FORWARDED_RESPONSE = ['content-type', 'cache-control', 'www-authenticate', 'retry-after'];
/** The largest body the console sends on (a deprecation or a discovery request is a few hundred bytes). */
const MAX_BODY_BYTES = 64 * 1024;
const ROUTE = /^\/api\/(registry|discovery|audit)(\/v1\/[^?#]*)(\?.*)?$/;

function problem(res: ServerResponse, status: number, error: string, message: string): void {
  if (res.headersSent) return void res.destroy();
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(JSON.stringify({ error, message }));
}

async function readBody(req: IncomingMessage): Promise<Buffer | 'too-large'> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return 'too-large';
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * `/api/{registry,discovery,audit}/v1/...` → the service's `/v1/...`, with the caller's own
 * Authorization header: the console holds no credential and decides nothing; each service
 * authorizes the caller exactly as it would a direct request. Answers stream through, so the
 * audit event stream reaches the browser as it is written, and ends when the browser leaves.
 */
export function apiProxy(upstreams: ConsoleConfig['upstreams'], logger: Logger) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const match = ROUTE.exec(req.url ?? '');
    // fetch would resolve dot segments and leave /v1: the relay reaches a service's API and nothing else.
    if (!match || /(^|\/)(\.|%2e){1,2}(\/|$)/i.test(match[2])) return problem(res, 404, 'NOT_FOUND', 'no such console API route');
    const [, service, path, query] = match;
    const method = req.method ?? 'GET';
    if (method !== 'GET' && method !== 'POST') return problem(res, 405, 'METHOD_NOT_ALLOWED', `${method} is not proxied`);
    const headers: Record<string, string> = {};
    for (const name of FORWARDED_REQUEST) {
      const value = req.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    const body = method === 'POST' ? await readBody(req) : undefined;
    if (body === 'too-large') return problem(res, 413, 'PAYLOAD_TOO_LARGE', `the body exceeds ${MAX_BODY_BYTES} bytes`);
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    let answer: Response;
    try {
      answer = await fetch(`${upstreams[service as Service]}${path}${query ?? ''}`, { method, headers, body, signal: abort.signal, redirect: 'manual' });
    } catch (error) {
      if (abort.signal.aborted) return;
      logger.warn({ service, err: (error as Error).message }, 'console upstream unreachable');
      return problem(res, 502, 'UPSTREAM_UNAVAILABLE', `the ${service} service cannot be reached`);
    }
    const out: Record<string, string> = { 'cache-control': 'no-store' };
    for (const name of FORWARDED_RESPONSE) {
      const value = answer.headers.get(name);
      if (value !== null) out[name] = value;
    }
    res.writeHead(answer.status, out);
    res.flushHeaders();
    if (!answer.body) return void res.end();
    Readable.fromWeb(answer.body as never).on('error', () => res.destroy()).pipe(res);
  };
}
