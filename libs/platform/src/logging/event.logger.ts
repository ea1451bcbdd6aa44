import { randomUUID } from 'node:crypto';
import type { BusMessage } from '../event-bus.port';
import { messageEventId } from '../log-position';
import { bindLogIds, type Logger } from '../logger';
import { activeTraceIds } from '../tracing/tracing';
import { derivedTraceId, MAX_CORRELATION, traceIdOf, type LogIds } from './log.ids';

/** The header a message's correlation id travels in, beside `traceparent`. */
export const CORRELATION_HEADER = 'x-correlation-id';

/**
 * A child logger for handling one consumed message: its event id, correlation id and trace id on
 * every line. Consumers call it once per message and hand the result to what they log through.
 */
export function eventLogger(logger: Logger, message: Pick<BusMessage, 'headers' | 'value'>): Logger {
  const eventId = messageEventId(message);
  return bindLogIds(logger, { ...eventLogIds(message), ...(eventId ? { eventId } : {}) });
}

/** The headers that carry a consumed message's correlation id on to the messages its handling publishes. */
export function correlationHeaders(message: Pick<BusMessage, 'headers' | 'value'>): Record<string, string> {
  return { [CORRELATION_HEADER]: eventLogIds(message).correlationId };
}

/**
 * The header, else the envelope's own correlation id (a message relayed before the header
 * existed), else a fresh one. The trace: the active span's when tracing is on, else the
 * message's traceparent, else derived from the correlation id as the sender derived it.
 */
function eventLogIds(message: Pick<BusMessage, 'headers' | 'value'>): LogIds {
  const correlationId = messageCorrelationId(message) ?? randomUUID();
  const traceId = activeTraceIds()?.traceId ?? traceIdOf(message.headers.traceparent) ?? derivedTraceId(correlationId);
  return { correlationId, traceId };
}

/** The correlation id a message carries (header, else envelope), cut to size; undefined when it has none. */
export function messageCorrelationId(message: Pick<BusMessage, 'headers' | 'value'>): string | undefined {
  return (message.headers[CORRELATION_HEADER] || envelopeCorrelation(message.value))?.slice(0, MAX_CORRELATION);
}

function envelopeCorrelation(value: string | null): string | undefined {
  if (value === null) return undefined;
  try {
    const id: unknown = (JSON.parse(value) as { correlationId?: unknown } | null)?.correlationId;
    return typeof id === 'string' && id.length > 0 ? id : undefined;
  } catch {
    return undefined;
  }
}
