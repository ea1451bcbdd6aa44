import { isJsonObject } from './json-rpc-id.guard';
import { MCP_META_KEY, type CacheScope, type Implementation, type ServerCapabilities } from './stateless-revision.types';

/** Methods whose complete results must say how long they stay fresh and who may cache them. */
export const CACHEABLE_METHODS = ['server/discover', 'tools/list', 'prompts/list', 'resources/list', 'resources/templates/list', 'resources/read'] as const;

export type CacheableMethod = (typeof CACHEABLE_METHODS)[number];

export function isCacheableMethod(method: string): method is CacheableMethod {
  return CACHEABLE_METHODS.some((known) => known === method);
}

export interface CacheHints {
  readonly ttlMs: number;
  readonly cacheScope: CacheScope;
}

/**
 * Hints for a list that depends on who asks (Estate filters every list by the caller's rights):
 * never shared across authorization contexts, whatever the TTL.
 */
export function perPrincipalCacheHints(ttlMs: number): CacheHints {
  return cacheHints(ttlMs, 'private');
}

export function cacheHints(ttlMs: number, cacheScope: CacheScope): CacheHints {
  if (!Number.isSafeInteger(ttlMs) || ttlMs < 0) throw new TypeError(`cacheHints: ttlMs must be a non-negative integer, got ${String(ttlMs)}`);
  if (cacheScope !== 'public' && cacheScope !== 'private') throw new TypeError(`cacheHints: cacheScope must be "public" or "private"`);
  return { ttlMs, cacheScope };
}

/**
 * Turns a handler's result body into a final answer of the stateless revision: `resultType` set
 * to complete, the server named in `_meta` (existing `_meta` members kept), and, for a cacheable
 * method, its hints. A cacheable method without hints, or hints on any other method, is a bug in
 * the caller and throws rather than going out on the wire.
 */
export function completeResult(
  method: string,
  body: Readonly<Record<string, unknown>>,
  options: { readonly serverInfo?: Implementation; readonly cache?: CacheHints } = {},
): Record<string, unknown> {
  const cacheable = isCacheableMethod(method);
  if (cacheable && options.cache === undefined) throw new TypeError(`completeResult: ${method} results need ttlMs and cacheScope`);
  if (!cacheable && options.cache !== undefined) throw new TypeError(`completeResult: ${method} results carry no cache hints`);
  const result: Record<string, unknown> = { ...body, resultType: 'complete' };
  if (options.cache !== undefined) Object.assign(result, cacheHints(options.cache.ttlMs, options.cache.cacheScope));
  return options.serverInfo === undefined ? result : withServerInfo(result, options.serverInfo);
}

/** Adds the server's self-description to a result's `_meta`, keeping what is there. */
export function withServerInfo(result: Readonly<Record<string, unknown>>, serverInfo: Implementation): Record<string, unknown> {
  const meta = isJsonObject(result['_meta']) ? result['_meta'] : {};
  return { ...result, _meta: { ...meta, [MCP_META_KEY.serverInfo]: serverInfo } };
}

export interface DiscoverDescription {
  readonly supportedVersions: readonly string[];
  readonly capabilities: ServerCapabilities;
  readonly serverInfo: Implementation;
  readonly instructions?: string;
  readonly cache: CacheHints;
}

/**
 * The `server/discover` answer. What the edge advertises can depend on the caller (capabilities
 * follow what it may see), so the caller picks the cache scope; the versions must be non-empty.
 */
export function discoverResult(description: DiscoverDescription): Record<string, unknown> {
  if (description.supportedVersions.length === 0) throw new TypeError('discoverResult: supportedVersions must not be empty');
  const body: Record<string, unknown> = {
    supportedVersions: [...description.supportedVersions],
    capabilities: description.capabilities,
    ...(description.instructions === undefined ? {} : { instructions: description.instructions }),
  };
  return completeResult('server/discover', body, { serverInfo: description.serverInfo, cache: description.cache });
}

/** Reads `resultType` of a result from any revision: results from session revisions have none and count as complete. */
export function resultTypeOf(result: unknown): string {
  if (!isJsonObject(result)) return 'complete';
  const type = result['resultType'];
  return typeof type === 'string' ? type : 'complete';
}
