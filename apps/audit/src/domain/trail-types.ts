import { CURRENT_CALL_EVENT_VERSIONS, CURRENT_REGISTRY_EVENT_VERSIONS } from '@estate/events';
import { DEPRECATION_CALLERS_TYPE } from '../deprecation/deprecation-callers';
import type { WebhookFactType } from '../webhooks/webhook.trail';

// `satisfies Record<…, true>`: a fact added to the union fails to compile until it is listed here.
const WEBHOOK_FACTS = {
  WebhookSubscribed: true, WebhookUnsubscribed: true, WebhookDelivered: true, WebhookDeadLettered: true, WebhookReplayRequested: true,
} satisfies Record<WebhookFactType, true>;

/**
 * Every type a trail entry can carry: the registry's events and the edge's call records as they
 * arrive, the callers list audit adds after a deprecation, and the webhook facts it records
 * itself. A `type` filter naming anything else could only ever match nothing.
 */
export const TRAIL_TYPES: readonly string[] = [
  ...Object.keys(CURRENT_REGISTRY_EVENT_VERSIONS),
  DEPRECATION_CALLERS_TYPE,
  ...Object.keys(CURRENT_CALL_EVENT_VERSIONS),
  ...Object.keys(WEBHOOK_FACTS),
];
