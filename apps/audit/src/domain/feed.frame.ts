import { isJsonObject } from '@estate/protocol';
import { toCloudEvent, type CloudEvent, type CloudEventOptions } from '@estate/events';
import type { VisibilityFacts } from '@estate/contracts';
import type { AuditEntry } from './audit-entry.mapper';

/** The CloudEvent of a recorded registry entry: the envelope exactly as recorded, so `dataschema` names the version it was written in. */
export function feedEvent(entry: Pick<AuditEntry, 'payload'>, options: CloudEventOptions): CloudEvent {
  return toCloudEvent(entry.payload, options);
}

/**
 * One server-sent event: `id` is the feed position (the trail's seq, what a reconnecting client
 * sends back as Last-Event-ID), `event` the CloudEvents type, `data` the structured CloudEvent.
 * JSON has no raw newlines, so `data` is one line.
 */
export function toFeedFrame(seq: number, event: CloudEvent): string {
  return `id: ${seq}\nevent: ${event.type.replace(/[\r\n]/g, ' ')}\ndata: ${JSON.stringify(event)}\n\n`;
}

/**
 * The visibility facts of a published spec, or undefined when the recorded spec lacks them: the
 * trail keeps whatever was sent, and a malformed spec must hide the tool, not throw or show it.
 */
export function visibilityFactsOf(spec: unknown): VisibilityFacts | undefined {
  if (!isJsonObject(spec)) return undefined;
  const { requiredScopes, tenants, dataClassification } = spec;
  const strings = (value: unknown): value is string[] => Array.isArray(value) && value.every((item) => typeof item === 'string');
  if (!strings(requiredScopes) || !strings(tenants) || typeof dataClassification !== 'string') return undefined;
  return { requiredScopes, tenants, dataClassification: dataClassification as VisibilityFacts['dataClassification'] };
}
