import type { AuditEntryContent } from '../domain/audit-entry.mapper';
import type { WebhookOutcome } from '../domain/trail-outcomes';

/** Where webhook facts sit in the trail: a topic of their own, so the change feed never carries them. */
export const WEBHOOK_TRAIL_TOPIC = 'estate.webhooks';

export type WebhookFactType = 'WebhookSubscribed' | 'WebhookUnsubscribed' | 'WebhookDelivered' | 'WebhookDeadLettered' | 'WebhookReplayRequested';

export interface WebhookFact {
  id: string;
  type: WebhookFactType;
  subscriptionId: string;
  actor: string;
  at: Date;
  /** The tool the delivered event is about, when there is one. */
  tool?: string;
  /** The version of the tool the delivered event is about, when it names one. */
  version?: string;
  outcome?: WebhookOutcome;
  data: Record<string, unknown>;
}

/**
 * A webhook fact as a trail entry, in the envelope shape every entry keeps as its evidence. The
 * secret is never part of `data`.
 */
export function webhookTrailEntry(fact: WebhookFact): AuditEntryContent {
  const stream = `webhook-${fact.subscriptionId}`;
  const occurredAt = fact.at.toISOString();
  return {
    eventId: fact.id,
    topic: WEBHOOK_TRAIL_TOPIC,
    type: fact.type,
    stream,
    tool: fact.tool === undefined || fact.tool === '' ? null : fact.tool,
    version: fact.version ?? null,
    principal: fact.actor,
    outcome: fact.outcome ?? null,
    occurredAt,
    payload: { id: fact.id, type: fact.type, version: 1, stream, position: 0, occurredAt, actor: fact.actor, correlationId: fact.id, data: fact.data },
  };
}
