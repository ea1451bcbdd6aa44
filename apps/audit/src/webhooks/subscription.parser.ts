import { isIP } from 'node:net';
import { CURRENT_REGISTRY_EVENT_VERSIONS, FEED_ONLY_EVENT_TYPES, parseFeedFilter, type FeedFilter } from '@estate/events';
import { isJsonObject } from '@estate/protocol';
import { tunnelledIpv4, urlHost, type TargetAddressPolicy } from '@estate/platform';

export interface SubscriptionRequest {
  url: URL;
  filter: FeedFilter;
  /** Absent: the service generates one and answers it once. */
  secret?: string;
}

export type ParsedSubscription = { ok: true; value: SubscriptionRequest } | { ok: false; path: string; message: string };

/** What a webhook may filter on: the registry's facts and the follow-ups audit adds to the feed. */
export const REGISTRY_EVENT_TYPES = [...Object.keys(CURRENT_REGISTRY_EVENT_VERSIONS), ...FEED_ONLY_EVENT_TYPES];
const MAX_URL = 2048;
const SECRET = /^[\x21-\x7e]{32,256}$/;
const FIELDS = new Set(['url', 'filter', 'secret']);

const refuse = (path: string, message: string): ParsedSubscription => ({ ok: false, path, message });

/** The target as far as it can be judged without DNS: scheme, credentials, and a literal address. */
export function parseTargetUrl(raw: unknown, policy: TargetAddressPolicy): { ok: true; url: URL } | { ok: false; message: string } {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > MAX_URL) return { ok: false, message: `an http(s) URL of at most ${MAX_URL} characters` };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, message: 'not a URL' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { ok: false, message: 'the scheme must be https or http' };
  if (url.username !== '' || url.password !== '') return { ok: false, message: 'credentials in the URL would be logged and shown; use the signing secret' };
  const host = urlHost(url);
  if (isIP(host) !== 0 && !policy.admitsAddress(host)) {
    const carried = tunnelledIpv4(host);
    const what = carried === undefined ? host : `${host} (a 6to4 or Teredo address carrying ${carried})`;
    return { ok: false, message: `${what} is a link-local, metadata, loopback or private address; allow it with ESTATE_WEBHOOK_ALLOW` };
  }
  return { ok: true, url };
}

/** A `POST /v1/subscriptions` body; the first problem is answered with its path. */
export function parseSubscription(body: unknown, policy: TargetAddressPolicy): ParsedSubscription {
  if (!isJsonObject(body)) return refuse('', 'the body must be a JSON object');
  const unknown = Object.keys(body).find((key) => !FIELDS.has(key));
  if (unknown !== undefined) return refuse(unknown, 'unknown field; one of url, filter, secret');
  const target = parseTargetUrl(body.url, policy);
  if (!target.ok) return refuse('url', target.message);
  const rawFilter = body.filter ?? {};
  if (!isJsonObject(rawFilter)) return refuse('filter', 'an object with tools, types and since');
  const strayFilter = Object.keys(rawFilter).find((key) => !['tools', 'types', 'since'].includes(key));
  if (strayFilter !== undefined) return refuse(`filter.${strayFilter}`, 'unknown field; one of tools, types, since');
  const filter = parseFeedFilter(rawFilter, REGISTRY_EVENT_TYPES, 'filter.');
  if (!filter.ok) return refuse(filter.path, filter.message);
  if (body.secret !== undefined && (typeof body.secret !== 'string' || !SECRET.test(body.secret))) {
    return refuse('secret', 'from 32 to 256 visible ASCII characters (no spaces), or leave it out to have one generated');
  }
  return { ok: true, value: { url: target.url, filter: filter.filter, secret: body.secret as string | undefined } };
}
