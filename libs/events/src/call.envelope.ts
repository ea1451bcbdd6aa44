import type { CallEvent } from './call.events';
import type { EventEnvelope } from './envelope';

/**
 * A call record's envelope as sent. Its keys are written in sorted order (the edge writes the
 * completed call's data so too), which is the order audit hashes and stores them in: audit then
 * has no object to copy while it puts the envelope in canonical form. The edge gives it a
 * time-ordered id (timeOrderedEventId), so the trail's unique index on event ids grows at its end.
 */
export function callEnvelopeText(event: CallEvent, id: string, sessionId: string | undefined, at: Date): string {
  const principal = event.data.principal;
  const envelope: EventEnvelope = {
    actor: principal,
    correlationId: sessionId ?? 'none',
    data: event.data,
    id,
    occurredAt: at.toISOString(),
    position: 0,
    stream: `principal:${principal}`,
    type: event.type,
    version: event.version,
  };
  return JSON.stringify(envelope);
}
