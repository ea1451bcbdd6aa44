import type { DeprecationCaller, EventEnvelope, ToolVersionDeprecationCallersData } from '@estate/events';
import type { AuditEntry } from '../domain/audit-entry.mapper';

export const DEPRECATION_CALLERS_TYPE = 'ToolVersionDeprecationCallers';
/** Who records the follow-up: audit itself, not a person. */
export const DEPRECATION_CALLERS_ACTOR = 'estate:audit';
/** At most this many callers are named in one event; `total` still counts them all. */
export const MAX_NAMED_CALLERS = 1000;
const DAY_MS = 86_400_000;

/** The follow-up's id is derived from the deprecation's: recording it twice (two instances, a retry) dedupes on it. */
export function followUpId(deprecationEventId: string): string {
  return `${deprecationEventId}/callers`;
}

/** Calls from this instant on count: `windowDays` before the deprecation was recorded. */
export function windowStart(deprecation: Pick<AuditEntry, 'occurredAt'>, windowDays: number): Date {
  return new Date(Date.parse(deprecation.occurredAt) - windowDays * DAY_MS);
}

/**
 * The envelope that follows a deprecation in the trail. It sits on the registry log's topic so the
 * tool-change feed (and whatever reads that topic's entries) carries it right after the
 * deprecation; `position` is the deprecation's, as this is a fact about that event.
 */
export function deprecationCallersEvent(
  deprecation: AuditEntry, callers: DeprecationCaller[], total: number, windowDays: number, now: Date,
): EventEnvelope<typeof DEPRECATION_CALLERS_TYPE, ToolVersionDeprecationCallersData> {
  return {
    id: followUpId(deprecation.eventId),
    type: DEPRECATION_CALLERS_TYPE,
    version: 1,
    stream: deprecation.stream,
    position: deprecation.payload.position,
    occurredAt: now.toISOString(),
    actor: DEPRECATION_CALLERS_ACTOR,
    correlationId: deprecation.payload.correlationId,
    data: {
      name: deprecation.tool ?? deprecation.stream,
      version: deprecation.version ?? '',
      deprecationEventId: deprecation.eventId,
      windowDays,
      from: windowStart(deprecation, windowDays).toISOString(),
      to: now.toISOString(),
      callers: callers.slice(0, MAX_NAMED_CALLERS),
      total,
    },
  };
}

/**
 * The hook for the feed and webhook deliveries: the callers a trail entry carries, when it is a
 * deprecation's follow-up (`undefined` for any other entry).
 */
export function deprecationCallersOf(entry: Pick<AuditEntry, 'type' | 'payload'>): ToolVersionDeprecationCallersData | undefined {
  return entry.type === DEPRECATION_CALLERS_TYPE ? (entry.payload.data as ToolVersionDeprecationCallersData) : undefined;
}

/**
 * Who called a tool is an audit privilege (GET /v1/tools/{name}/callers needs estate:audit): a
 * feed or delivery that shows agents the events of their own tools must leave this entry out for
 * them, though it is about a tool they see.
 */
export function onlyForAuditReaders(entry: Pick<AuditEntry, 'type'>): boolean {
  return entry.type === DEPRECATION_CALLERS_TYPE;
}
