import { isJsonObject } from './json-rpc-id.guard';
import { makeNotification, makeResult } from './json-rpc-message.builder';
import type { JsonRpcId, JsonRpcNotification, JsonRpcSuccess } from './json-rpc.types';
import { filterAdmits, type SubscriptionFilter } from './subscription-filter.parser';
import { MCP_META_KEY, type Implementation } from './stateless-revision.types';
import { withServerInfo } from './stateless-result.builder';

/*
 * Messages on a `subscriptions/listen` stream. Each carries the id of the listen request as its
 * subscription id, so a client with several streams (or one stdio channel) can tell them apart.
 */

export const SUBSCRIPTION_ACKNOWLEDGED = 'notifications/subscriptions/acknowledged';

/** The first message of every stream: what the server agreed to send. Nothing may precede it. */
export function subscriptionAcknowledged(subscriptionId: JsonRpcId, honoured: SubscriptionFilter): JsonRpcNotification {
  return makeNotification(SUBSCRIPTION_ACKNOWLEDGED, { _meta: { [MCP_META_KEY.subscriptionId]: subscriptionId }, notifications: honoured });
}

/**
 * A change notification for one stream, or null when its filter did not ask for it (the server
 * must never send a kind the client did not opt in to).
 */
export function subscriptionNotification(subscriptionId: JsonRpcId, filter: SubscriptionFilter, method: string, params: Readonly<Record<string, unknown>> = {}): JsonRpcNotification | null {
  const uri = typeof params['uri'] === 'string' ? params['uri'] : undefined;
  if (!filterAdmits(filter, method, uri)) return null;
  const meta = isJsonObject(params['_meta']) ? params['_meta'] : {};
  // The stream's id is set last: whatever the params say, the notification belongs to this stream.
  return makeNotification(method, { ...params, _meta: { ...meta, [MCP_META_KEY.subscriptionId]: subscriptionId } });
}

/** The answer that ends a stream on the server's initiative (e.g. shutdown), so the client knows it was not a drop. */
export function subscriptionClosed(subscriptionId: JsonRpcId, serverInfo?: Implementation): JsonRpcSuccess {
  const result: Record<string, unknown> = { resultType: 'complete', _meta: { [MCP_META_KEY.subscriptionId]: subscriptionId } };
  return makeResult(subscriptionId, serverInfo === undefined ? result : withServerInfo(result, serverInfo));
}
