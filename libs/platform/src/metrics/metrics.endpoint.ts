import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Registry } from 'prom-client';

/** Where every service serves its metrics; the edge lists it among its routes. */
export const METRICS_PATH = '/metrics';

export interface MetricsAccess {
  registry: Registry;
  /** ESTATE_METRICS_TOKEN: the scraper's bearer secret. Unset, only loopback clients are served. */
  token?: string;
}

type Verdict = { ok: true } | { ok: false; status: 401 | 403; message: string };

const digest = (text: string) => createHash('sha256').update(text).digest();

/** Compares digests, so neither the token's length nor its first differing byte shows in the timing. */
function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

/**
 * Headers a reverse proxy adds to say whom it relays (nginx's X-Real-IP, the CDNs' own, Via): a
 * request that carries any of them came through a proxy, whatever the socket says.
 */
const RELAYED_BY = ['forwarded', 'x-forwarded-for', 'x-forwarded-host', 'x-real-ip', 'x-client-ip', 'true-client-ip', 'cf-connecting-ip', 'fastly-client-ip', 'x-cluster-client-ip', 'via'];

/** Credentials of any kind: a browser's cookie or a proxy's are credentials too. */
const CREDENTIALS = ['authorization', 'cookie', 'proxy-authorization'];

/** A client on this host, not relayed by a proxy here (which would make every remote client look local). */
export function isLoopbackClient(req: IncomingMessage): boolean {
  if (RELAYED_BY.some((name) => req.headers[name] !== undefined)) return false;
  const address = req.socket.remoteAddress ?? '';
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');
}

/**
 * Who may read `/metrics`: series name the published tools, which are governed, so not everyone.
 * With a token set, exactly the bearer of that token; without one, loopback clients that send no
 * credentials. An agent's token is never the scrape secret, so it is refused either way.
 */
export function judgeMetricsAccess(req: IncomingMessage, token: string | undefined): Verdict {
  const authorization = req.headers.authorization;
  if (token !== undefined) {
    const bearer = /^Bearer (\S+)$/i.exec(authorization ?? '')?.[1];
    if (bearer !== undefined && sameSecret(bearer, token)) return { ok: true };
    return { ok: false, status: 401, message: 'metrics need the scrape token (Authorization: Bearer $ESTATE_METRICS_TOKEN)' };
  }
  if (CREDENTIALS.some((name) => req.headers[name] !== undefined)) return { ok: false, status: 403, message: 'metrics are not served to callers with credentials while ESTATE_METRICS_TOKEN is unset' };
  if (!isLoopbackClient(req)) return { ok: false, status: 403, message: 'metrics are served to loopback clients only while ESTATE_METRICS_TOKEN is unset' };
  return { ok: true };
}

const CODES: Record<number, string> = { 401: 'UNAUTHENTICATED', 403: 'FORBIDDEN', 405: 'METHOD_NOT_ALLOWED' };

function refuse(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers });
  res.end(JSON.stringify({ error: CODES[status] ?? 'INTERNAL', message }));
}

/** The `/metrics` handler, mounted ahead of the framework's routing (and of the edge's unknown-route refusal). */
export function metricsEndpoint(access: MetricsAccess) {
  return (req: IncomingMessage, res: ServerResponse, next: () => void): void => {
    const path = (req.url ?? '/').split('?')[0].replace(/\/+$/, '');
    if (path !== METRICS_PATH) return next();
    if (req.method !== 'GET' && req.method !== 'HEAD') return refuse(res, 405, `${METRICS_PATH} only answers GET`, { allow: 'GET, HEAD' });
    const verdict = judgeMetricsAccess(req, access.token);
    if (!verdict.ok) return refuse(res, verdict.status, verdict.message, verdict.status === 401 ? { 'www-authenticate': 'Bearer realm="metrics"' } : {});
    access.registry.metrics().then(
      (text) => {
        res.writeHead(200, { 'content-type': access.registry.contentType, 'cache-control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      (error: unknown) => refuse(res, 500, `metrics could not be collected: ${error instanceof Error ? error.message : String(error)}`),
    );
  };
}
