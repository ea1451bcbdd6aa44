import type { CallOutcome, RefusalReason, UpstreamRequestRefusalReason, UpstreamRequestRelayedData } from '@estate/events';

/** What a delivered or given-up webhook delivery records as its outcome (webhook.trail.ts). */
export type WebhookOutcome = 'delivered' | 'dead_lettered';

/** The reason recorded for a refusal whose event named none (audit-entry.mapper.ts). */
export const UNNAMED_REFUSAL = 'unknown';

// `satisfies Record<…, true>`: a value added to one of these types fails to compile until it is listed here.
const CALL_OUTCOMES = { ok: true, tool_error: true, upstream_error: true, cancelled: true } satisfies Record<CallOutcome, true>;
const RELAY_OUTCOMES = { answered: true, failed: true } satisfies Record<UpstreamRequestRelayedData['outcome'], true>;
const WEBHOOK_OUTCOMES = { delivered: true, dead_lettered: true } satisfies Record<WebhookOutcome, true>;
const CALL_REFUSALS = {
  unknown_tool: true, invalid_params: true, invalid_arguments: true, rate_limited: true, confirmation_required: true, too_large: true, quarantined: true,
} satisfies Record<RefusalReason, true>;
const RELAY_REFUSALS = { not_allowed: true, no_call_in_flight: true, ambiguous_caller: true, client_not_capable: true } satisfies Record<UpstreamRequestRefusalReason, true>;

/**
 * Every outcome a trail entry can hold, and `refused`, the class the query matches every refusal
 * by. Registry entries hold none. A filter naming anything else could only ever match nothing.
 */
export const TRAIL_OUTCOMES: readonly string[] = [
  ...Object.keys(CALL_OUTCOMES),
  ...Object.keys(RELAY_OUTCOMES),
  ...Object.keys(WEBHOOK_OUTCOMES),
  'refused',
  ...[...new Set([...Object.keys(CALL_REFUSALS), ...Object.keys(RELAY_REFUSALS), UNNAMED_REFUSAL])].map((reason) => `refused:${reason}`),
];
