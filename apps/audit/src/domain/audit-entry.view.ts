import type { AuditEntryContent } from './audit-entry.mapper';

/** How an entry leaves the service, in query pages and on the event stream. */
export interface AuditEntryView {
  seq: number;
  eventId: string;
  topic: string;
  type: string;
  stream: string;
  tool: string | null;
  version: string | null;
  principal: string;
  outcome: string | null;
  occurredAt: string;
  data: unknown;
}

export function toEntryView(entry: AuditEntryContent & { seq: number }): AuditEntryView {
  return {
    seq: entry.seq,
    eventId: entry.eventId,
    topic: entry.topic,
    type: entry.type,
    stream: entry.stream,
    tool: entry.tool,
    version: entry.version,
    principal: entry.principal,
    outcome: entry.outcome,
    occurredAt: entry.occurredAt,
    data: entry.payload.data,
  };
}

/** A comment line: keeps proxies and idle timeouts from closing a quiet stream. */
export const SSE_HEARTBEAT = ': heartbeat\n\n';
