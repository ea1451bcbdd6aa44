import { isJsonObject } from './json-rpc-id.guard';
import type { JsonRpcErrorObject } from './json-rpc.types';
import { indexPath, memberPath } from './json-path.describer';
import { describeJsonType } from './json-value.describer';
import { invalidParamsAt } from './revision-error.table';

/** The change notifications a `subscriptions/listen` stream opts in to; nothing else may be sent on it. */
export interface SubscriptionFilter {
  readonly toolsListChanged?: boolean;
  readonly promptsListChanged?: boolean;
  readonly resourcesListChanged?: boolean;
  readonly resourceSubscriptions?: readonly string[];
}

const FLAGS = ['toolsListChanged', 'promptsListChanged', 'resourcesListChanged'] as const;

type Flag = (typeof FLAGS)[number];

/** Which filter flag lets a notification method through. */
export const LIST_CHANGED_FLAG: Readonly<Record<string, Flag>> = {
  'notifications/tools/list_changed': 'toolsListChanged',
  'notifications/prompts/list_changed': 'promptsListChanged',
  'notifications/resources/list_changed': 'resourcesListChanged',
};

export type SubscriptionFilterResult = { readonly ok: true; readonly filter: SubscriptionFilter } | { readonly ok: false; readonly error: JsonRpcErrorObject };

const FILTER_PATH = 'params.notifications';

/**
 * Reads the filter of a `subscriptions/listen` request. The filter itself is required; each of
 * its members is optional, and a member left out subscribes to nothing. Members the revision
 * does not define are ignored (a newer client may know more kinds than we do).
 */
export function parseSubscriptionFilter(params: unknown): SubscriptionFilterResult {
  const filter = isJsonObject(params) ? params['notifications'] : undefined;
  if (!isJsonObject(filter)) return fail(FILTER_PATH, `must be an object naming the notifications to receive, got ${describeJsonType(filter)}`);
  const parsed: { -readonly [K in keyof SubscriptionFilter]: SubscriptionFilter[K] } = {};
  for (const flag of FLAGS) {
    const value = filter[flag];
    if (value === undefined) continue;
    if (typeof value !== 'boolean') return fail(memberPath(FILTER_PATH, flag), `must be a boolean, got ${describeJsonType(value)}`);
    parsed[flag] = value;
  }
  const uris = filter['resourceSubscriptions'];
  if (uris !== undefined) {
    const path = memberPath(FILTER_PATH, 'resourceSubscriptions');
    if (!Array.isArray(uris)) return fail(path, `must be an array of resource URIs, got ${describeJsonType(uris)}`);
    const bad = uris.findIndex((uri) => typeof uri !== 'string' || uri === '');
    if (bad >= 0) return fail(indexPath(path, bad), `must be a non-empty string, got ${describeJsonType(uris[bad])}`);
    parsed.resourceSubscriptions = [...new Set(uris as string[])];
  }
  return { ok: true, filter: parsed };
}

/**
 * The part of `requested` the server will honour, given what it supports: flags it cannot
 * deliver and URIs it cannot watch are left out (and `false` flags are dropped as noise).
 */
export function acknowledgedFilter(requested: SubscriptionFilter, supported: { readonly flags: readonly Flag[]; readonly canWatch?: (uri: string) => boolean }): SubscriptionFilter {
  const honoured: { -readonly [K in keyof SubscriptionFilter]: SubscriptionFilter[K] } = {};
  for (const flag of FLAGS) if (requested[flag] === true && supported.flags.includes(flag)) honoured[flag] = true;
  const watch = supported.canWatch;
  if (requested.resourceSubscriptions !== undefined && watch !== undefined) {
    const uris = requested.resourceSubscriptions.filter((uri) => watch(uri));
    if (uris.length > 0) honoured.resourceSubscriptions = uris;
  }
  return honoured;
}

/** Whether a notification may go out on a stream with this (acknowledged) filter. */
export function filterAdmits(filter: SubscriptionFilter, method: string, uri?: string): boolean {
  const flag = LIST_CHANGED_FLAG[method];
  if (flag !== undefined) return filter[flag] === true;
  if (method === 'notifications/resources/updated') return uri !== undefined && (filter.resourceSubscriptions ?? []).includes(uri);
  return false;
}

function fail(path: string, reason: string): SubscriptionFilterResult {
  return { ok: false, error: invalidParamsAt(path, reason) };
}
