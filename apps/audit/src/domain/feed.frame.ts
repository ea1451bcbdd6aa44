import { toCloudEvent, type CloudEvent, type CloudEventOptions } from '@estate/events';
import type { AuditEntry } from './audit-entry.mapper';
import type { AgentFeedEvent } from './feed.agent-view';

/** The CloudEvent of a recorded registry entry: the envelope exactly as recorded, so `dataschema` names the version it was written in. */
export function feedEvent(entry: Pick<AuditEntry, 'payload'>, options: CloudEventOptions): CloudEvent {
  return toCloudEvent(entry.payload, options);
}

/**
 * One server-sent event: `id` is the feed position (the trail's seq, what a reconnecting client
 * sends back as Last-Event-ID), `event` the CloudEvents type, `data` the structured CloudEvent.
 * JSON has no raw newlines, so `data` is one line.
 */
export function toFeedFrame(seq: number, event: CloudEvent | AgentFeedEvent): string {
  return `id: ${seq}\nevent: ${event.type.replace(/[\r\n]/g, ' ')}\ndata: ${JSON.stringify(event)}\n\n`;
}
