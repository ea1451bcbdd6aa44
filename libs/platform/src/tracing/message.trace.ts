import type { BusMessage } from '../event-bus.port';
import { withCorrelation } from './correlation';
import { extractTraceContext, SpanKind, tracingStarted, withSpan } from './tracing';

const MAX_CORRELATION = 128;

/**
 * Handles one bus message inside a consumer span that continues the trace in its headers, with
 * the envelope's correlation id known to every log line written meanwhile.
 */
export function withMessageSpan<T>(name: string, message: BusMessage, work: () => Promise<T>): Promise<T> {
  if (!tracingStarted()) return work();
  const attributes = { 'messaging.destination.name': message.topic, 'messaging.kafka.partition': message.partition, 'messaging.kafka.offset': message.offset };
  const parent = extractTraceContext(message.headers);
  return withSpan(name, attributes, () => withCorrelation(correlationOf(message.value), work), { parent, kind: SpanKind.CONSUMER });
}

/** The envelope's correlation id, if the value is an envelope that has one; anything else has none. */
function correlationOf(value: string | null): string | undefined {
  if (value === null) return undefined;
  try {
    const id: unknown = (JSON.parse(value) as { correlationId?: unknown } | null)?.correlationId;
    return typeof id === 'string' && id.length > 0 ? id.slice(0, MAX_CORRELATION) : undefined;
  } catch {
    return undefined;
  }
}
