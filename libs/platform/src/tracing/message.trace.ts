import type { BusMessage } from '../event-bus.port';
import { messageCorrelationId } from '../logging/event.logger';
import { withCorrelation } from './correlation';
import { extractTraceContext, SpanKind, tracingStarted, withSpan } from './tracing';

/**
 * Handles one bus message inside a consumer span that continues the trace in its headers, with
 * the envelope's correlation id known to every log line written meanwhile.
 */
export function withMessageSpan<T>(name: string, message: BusMessage, work: () => Promise<T>): Promise<T> {
  if (!tracingStarted()) return work();
  const attributes = { 'messaging.destination.name': message.topic, 'messaging.kafka.partition': message.partition, 'messaging.kafka.offset': message.offset };
  const parent = extractTraceContext(message.headers);
  return withSpan(name, attributes, () => withCorrelation(messageCorrelationId(message), work), { parent, kind: SpanKind.CONSUMER });
}
