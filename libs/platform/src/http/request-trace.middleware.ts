import type { IncomingMessage, ServerResponse } from 'node:http';
import { context, SpanKind, SpanStatusCode, trace, type Context } from '@opentelemetry/api';
import { withCorrelation } from '../tracing/correlation';
import { extractTraceContext, tracingStarted } from '../tracing/tracing';
import { correlationOf, logIdsOf, type LogIds } from '../logging/log.ids';

type Next = (error?: unknown) => void;
interface RequestTrace {
  context: Context;
  correlationId: string;
}

const TRACE = Symbol('estate.request-trace');
type TracedRequest = IncomingMessage & { [TRACE]?: RequestTrace };
/** Longest path kept in a span name; the rest of a hostile URL is not worth storing. */
const MAX_NAME_PATH = 120;

/**
 * Every request is one server span, continuing the caller's `traceparent` when it sends one, and
 * handled with its `x-correlation-id` (or `x-request-id`) known to the log lines. A request without
 * one gets a fresh id here, so its log lines and the events it appends (the registry reads the
 * header) share it; the answer carries it back, so a caller can quote it. Mounted first.
 */
export function traceRequests(req: IncomingMessage, res: ServerResponse, next: Next): void {
  const correlationId = correlationOf(req.headers);
  req.headers['x-correlation-id'] = correlationId;
  res.setHeader('x-correlation-id', correlationId);
  if (!tracingStarted()) return next();
  const parent = extractTraceContext(req.headers);
  const path = (req.url ?? '/').split('?')[0].slice(0, MAX_NAME_PATH);
  const span = trace.getTracer('estate').startSpan(`${req.method ?? 'GET'} ${path}`, {
    kind: SpanKind.SERVER,
    attributes: { 'http.request.method': req.method ?? 'GET', 'url.path': path },
  }, parent);
  res.once('close', () => {
    // The route's template once the router matched one: ids in the path would make every span name unique.
    const route = (req as { route?: { path?: unknown } }).route?.path;
    if (typeof route === 'string') span.updateName(`${req.method ?? 'GET'} ${route}`);
    span.setAttribute('http.response.status_code', res.statusCode);
    if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  });
  const known: RequestTrace = { context: trace.setSpan(parent, span), correlationId };
  (req as TracedRequest)[TRACE] = known;
  resume(known, next);
}

/**
 * Enters the request's context again: a body parser calls `next` from a stream callback, where the
 * context it was read in is lost. Mounted after the body parser.
 */
export function resumeRequestTrace(req: IncomingMessage, _res: ServerResponse, next: Next): void {
  const known = (req as TracedRequest)[TRACE];
  if (known) resume(known, next);
  else next();
}

function resume(known: RequestTrace, next: Next): void {
  // The correlation id rides in the context: set it inside the request's, not around it.
  context.with(known.context, () => withCorrelation(known.correlationId, () => next()));
}

/**
 * The ids for this request's log lines: its span's trace when tracing is on, else the caller's
 * traceparent, else one derived from the correlation id. Computed on demand: most edge requests log nothing.
 */
export function requestLogIds(req: IncomingMessage): LogIds {
  const header = req.headers['x-correlation-id'];
  const correlationId = typeof header === 'string' ? header : correlationOf(req.headers);
  const known = (req as TracedRequest)[TRACE];
  const traceId = known && trace.getSpanContext(known.context)?.traceId;
  return traceId ? { correlationId, traceId } : logIdsOf(req.headers, correlationId);
}
