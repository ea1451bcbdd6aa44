import { createHash, randomUUID } from 'node:crypto';

/** The ids every log line of one request or event carries. */
// A type, not an interface: it must widen to the bindings a pino child takes.
export type LogIds = {
  traceId: string;
  correlationId: string;
};

type HeaderBag = Readonly<Record<string, string | string[] | undefined>>;

/** The registry keeps at most this much of a correlation id; a longer header is cut, not refused. */
export const MAX_CORRELATION = 128;
const TRACEPARENT = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/;
const NO_TRACE = '0'.repeat(32);

function single(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** The trace id of a W3C `traceparent`, if it is one (an all-zero id is invalid by the spec). */
export function traceIdOf(traceparent: string | undefined): string | undefined {
  const match = traceparent === undefined ? null : TRACEPARENT.exec(traceparent.trim());
  return match && match[1] !== NO_TRACE ? match[1] : undefined;
}

/**
 * With tracing off nobody starts a trace, so the id is derived from the correlation id: every
 * service that handles the same publish (registry, discovery, edge) computes the same one without
 * anything more travelling with the event.
 */
export function derivedTraceId(correlationId: string): string {
  return createHash('sha256').update(correlationId).digest('hex').slice(0, 32);
}

/** The caller's correlation id (`x-correlation-id`, else `x-request-id`), cut to size; a fresh one when it sent none. */
export function correlationOf(headers: HeaderBag): string {
  const given = single(headers['x-correlation-id']) || single(headers['x-request-id']);
  return given ? given.slice(0, MAX_CORRELATION) : randomUUID();
}

/** Ids from a request's or a message's headers: the traceparent's trace when there is one. */
export function logIdsOf(headers: HeaderBag, correlationId: string): LogIds {
  return { correlationId, traceId: traceIdOf(single(headers.traceparent)) ?? derivedTraceId(correlationId) };
}
