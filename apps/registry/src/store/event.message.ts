import type { EventEnvelope } from '@estate/events';
import { messageBytes, type OutgoingMessage } from '@estate/platform';

/** The message the relay sends for a stored event; the store measures the same shape before storing it. */
export function eventMessage(envelope: EventEnvelope): OutgoingMessage {
  return {
    key: envelope.stream,
    value: JSON.stringify(envelope),
    // The correlation id rides beside traceparent, so consumers log it without parsing the value.
    headers: { 'estate-type': envelope.type, 'estate-version': String(envelope.version), 'estate-id': envelope.id, 'x-correlation-id': envelope.correlationId },
  };
}

export function eventMessageBytes(envelope: EventEnvelope): number {
  return messageBytes(eventMessage(envelope));
}
