import { isVisible, type Principal } from '@estate/contracts';
import type { CatalogEntry, CatalogUpstream } from '@estate/events';
import type { CatalogChange } from '../catalog/catalog.replica';

/** An upstream server a principal may reach for resources, prompts, completions and logging. */
export interface ReachableServer {
  server: string;
  /** `server` for a namespaced server, '' for one registered with an empty namespace (bare names). */
  namespace: string;
  upstream: CatalogUpstream;
}

/** A version a principal could call today: published, not retired, not quarantined, visible to it. */
export function usable(entry: CatalogEntry, principal: Principal): boolean {
  return entry.versions.some((v) => v.status !== 'retired' && !v.quarantined && isVisible(principal, v.spec));
}

/**
 * The authorization rule for everything but tools: a principal reaches an upstream server's
 * resources and prompts only while it may see at least one usable tool of that server. The
 * server's namespace is read off its tools: the registry only allows the server name or ''.
 */
export function reachableServers(entries: Iterable<CatalogEntry>, principal: Principal): ReachableServer[] {
  const found = new Map<string, ReachableServer>();
  for (const entry of entries) {
    const server = entry.upstream.server;
    if (found.has(server) || !usable(entry, principal)) continue;
    found.set(server, { server, namespace: entry.name.startsWith(`${server}.`) ? server : '', upstream: entry.upstream });
  }
  return [...found.values()].sort((a, b) => (a.server < b.server ? -1 : a.server > b.server ? 1 : 0));
}

/**
 * A rule for one catalog change: whether it took a server into or out of a principal's reach.
 * Only the servers of the changed tools can move, and a server keeps a principal's reach while any
 * unchanged tool of it stays usable, so only those tools are looked at (gathered once per change,
 * whatever the number of principals asked about).
 */
export function reachMoved(changes: readonly CatalogChange[], entries: Iterable<CatalogEntry>): (principal: Principal) => boolean {
  const servers = new Set<string>();
  for (const { before, after } of changes) {
    if (before) servers.add(before.upstream.server);
    if (after) servers.add(after.upstream.server);
  }
  if (servers.size === 0) return () => false;
  const changed = new Set(changes.map((c) => c.name));
  const unchanged = new Map<string, CatalogEntry[]>([...servers].map((server) => [server, []]));
  for (const entry of entries) if (!changed.has(entry.name)) unchanged.get(entry.upstream.server)?.push(entry);
  return (principal) => [...servers].some((server) => {
    if (unchanged.get(server)?.some((entry) => usable(entry, principal))) return false;
    const reachedBy = (side: 'before' | 'after') => changes.some((c) => c[side]?.upstream.server === server && usable(c[side] as CatalogEntry, principal));
    return reachedBy('before') !== reachedBy('after');
  });
}

/**
 * What decides who owns a resource URI, read off the whole catalog, reachable or not, so it is the
 * same for every caller: the namespaced servers (a URI whose authority names one is that server's
 * alone) and when each server's first tool version still in the catalog was published (its age in
 * the estate). One pass, made only when resources are listed, never on a tools/call or a read.
 */
export interface ResourceOwnership {
  namespaced: ReadonlySet<string>;
  since: ReadonlyMap<string, string>;
}

export function resourceOwnership(entries: Iterable<CatalogEntry>): ResourceOwnership {
  const namespaced = new Set<string>();
  const since = new Map<string, string>();
  for (const entry of entries) {
    const server = entry.upstream.server;
    if (entry.name.startsWith(`${server}.`)) namespaced.add(server);
    for (const { publishedAt } of entry.versions) {
      const first = since.get(server);
      if (first === undefined || publishedAt < first) since.set(server, publishedAt);
    }
  }
  return { namespaced, since };
}

/** Oldest in the estate first (then by name): where two servers list one URI, the elder owns it for every caller alike. */
export function bySeniority(ownership: ResourceOwnership): (a: ReachableServer, b: ReachableServer) => number {
  return (a, b) => {
    const [x, y] = [ownership.since.get(a.server) ?? '', ownership.since.get(b.server) ?? ''];
    if (x !== y) return x < y ? -1 : 1;
    return a.server < b.server ? -1 : a.server > b.server ? 1 : 0;
  };
}

/** The current registration of a server, as the newest catalog entry of any of its tools carries it. */
export function currentUpstream(entries: Iterable<CatalogEntry>, server: string): CatalogUpstream | undefined {
  let best: CatalogEntry | undefined;
  for (const entry of entries) {
    if (entry.upstream.server === server && (!best || entry.position > best.position)) best = entry;
  }
  return best?.upstream;
}

export function qualify(namespace: string, name: string): string {
  return namespace === '' ? name : `${namespace}.${name}`;
}

/**
 * Which reachable servers a downstream name could belong to, and the upstream name in each: the
 * namespaced server whose prefix matches first, then the bare-named servers in name order.
 */
export function candidatesFor(servers: ReachableServer[], name: string): Array<{ target: ReachableServer; local: string }> {
  const namespaced = servers
    .filter((s) => s.namespace !== '' && name.startsWith(`${s.namespace}.`) && name.length > s.namespace.length + 1)
    .map((target) => ({ target, local: name.slice(target.namespace.length + 1) }));
  const bare = servers.filter((s) => s.namespace === '').map((target) => ({ target, local: name }));
  return [...namespaced, ...bare];
}
