import type { IncomingMessage, ServerResponse } from 'node:http';
import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { bindLogIds, type Logger } from '../logger';
import { requestLogIds } from './request-trace.middleware';

type Next = (error?: unknown) => void;
const LOGGER = Symbol('estate.request-logger');
type LoggedRequest = IncomingMessage & { [LOGGER]?: () => Logger; route?: { path?: unknown } };

/** Reads change nothing and are frequent (health probes, the console's polling): only at debug. */
const QUIET_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** Longest path written in a line; the rest of a hostile URL is not worth keeping. */
const MAX_PATH = 120;

/**
 * Puts a child logger carrying the request's trace and correlation ids on every request of a Nest
 * service (after traceRequests, which settled the ids), and writes one line when the answer is
 * sent: what was asked, the route, the status and how long it took.
 */
export function logRequests(base: Logger) {
  return (req: IncomingMessage, res: ServerResponse, next: Next): void => {
    // Bound on first use: most requests log nothing at the configured level, and binding a child
    // logger on each one cost as much as the rest of this middleware (profiled on publishes).
    let logger: Logger | undefined;
    const bound = (): Logger => (logger ??= bindLogIds(base, requestLogIds(req)));
    (req as LoggedRequest)[LOGGER] = bound;
    const started = performance.now();
    res.once('finish', () => {
      const method = req.method ?? 'GET';
      const level = res.statusCode >= 500 ? 'error' : QUIET_METHODS.has(method) ? 'debug' : 'info';
      // A child logger has its parent's level, so the base answers for it.
      if (!base.isLevelEnabled(level)) return;
      // The route's template once the router matched one; never the query string, which may hold anything.
      const route = (req as LoggedRequest).route?.path;
      const path = typeof route === 'string' ? route : (req.url ?? '/').split('?')[0].slice(0, MAX_PATH);
      bound()[level]({ method, path, status: res.statusCode, ms: Math.round(performance.now() - started) }, `${method} ${path} ${res.statusCode}`);
    });
    next();
  };
}

/** The request's own logger; a request that never passed logRequests (a test's bare server) gets `fallback`. */
export function requestLogger(req: IncomingMessage, fallback: Logger): Logger {
  return (req as LoggedRequest)[LOGGER]?.() ?? fallback;
}

/** A controller's parameter: the logger of the request it handles (`@RequestLog() log: Logger`). */
export const RequestLog = createParamDecorator((_data: unknown, ctx: ExecutionContext): Logger | undefined => (ctx.switchToHttp().getRequest<LoggedRequest>())[LOGGER]?.());
