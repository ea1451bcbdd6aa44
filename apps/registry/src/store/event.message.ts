import { cloudEventHeaders, toCloudEvent, type CloudEventOptions, type EventEnvelope } from '@estate/events';
import { messageBytes, type OutgoingMessage } from '@estate/platform';

/** What `ESTATE_ID` and `ESTATE_AUDIT_PUBLIC_URL` default to (config: `cloudEvents`); the relay may pass its config's. */
const DEFAULT_CLOUD_EVENTS: CloudEventOptions = { source: 'urn:estate:local', schemaBase: 'http://127.0.0.1:8003/v1/schemas/events' };

/** The message the relay sends for a stored event; the store measures the same shape before storing it. */
export function eventMessage(envelope: EventEnvelope, cloudEvents: CloudEventOptions = DEFAULT_CLOUD_EVENTS, value = JSON.stringify(envelope)): OutgoingMessage {
  return {
    key: envelope.stream,
    value,
    // The correlation id rides beside traceparent, so consumers log it without parsing the value. The ce_ headers
    // (CloudEvents' Kafka binary mode) let any CloudEvents consumer route and filter without knowing the envelope.
    headers: {
      'estate-type': envelope.type, 'estate-version': String(envelope.version), 'estate-id': envelope.id, 'x-correlation-id': envelope.correlationId,
      ...cloudEventHeaders(toCloudEvent(envelope, cloudEvents)),
    },
  };
}

export function eventMessageBytes(envelope: EventEnvelope, cloudEvents?: CloudEventOptions): number {
  return messageBytes(eventMessage(envelope, cloudEvents));
}

/**
 * The event's data as JSON (what the store writes) and the size of its message, the data
 * serialized once for both: a contract is most of an event, and the store used to serialize it
 * twice per publish. The value measured holds the same members as JSON.stringify(envelope), `data`
 * last (the store's envelopes list it last anyway), and a member's place does not change a length:
 * the size is eventMessageBytes'.
 */
export function measuredEvent(envelope: EventEnvelope, cloudEvents?: CloudEventOptions): { data: string; bytes: number } {
  const data = JSON.stringify(envelope.data);
  const { data: _data, ...members } = envelope;
  const value = `${JSON.stringify(members).slice(0, -1)},"data":${data}}`;
  return { data, bytes: messageBytes(eventMessage(envelope, cloudEvents, value)) };
}
