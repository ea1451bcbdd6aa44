import { toCloudEvent, type CloudEvent, type CloudEventOptions } from '@estate/events';
import type { AuditEntry } from './audit-entry.mapper';
import type { AgentFeedEvent } from './feed.agent-view';

/** The CloudEvent of a recorded registry entry: the envelope exactly as recorded, so `dataschema` names the version it was written in. */
export function feedEvent(entry: Pick<AuditEntry, 'payload'>, options: CloudEventOptions): CloudEvent {
  return toCloudEvent(entry.payload, options);
}

/**
 * One server-sent event: `id` is what a reconnecting client sends back as Last-Event-ID (the
 * trail's seq, or a cursor sealing it: stream/feed.ids.ts), `event` the CloudEvents type, `data`
 * the structured CloudEvent. JSON has no raw newlines, so `data` is one line.
 */
export function toFeedFrame(id: string, event: CloudEvent | AgentFeedEvent): string {
  return `id: ${id}\nevent: ${event.type.replace(/[\r\n]/g, ' ')}\ndata: ${JSON.stringify(event)}\n\n`;
}
