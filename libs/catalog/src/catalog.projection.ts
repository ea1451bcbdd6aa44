import type {
  CatalogEntry, CatalogUpstream, RegistryEvent, ServerRegisteredData,
} from '@estate/events';

export function upstreamOf(server: ServerRegisteredData | undefined, serverName: string): CatalogUpstream {
  if (!server) return { server: serverName, transport: 'streamable-http', allowSampling: false, allowElicitation: false };
  const upstream: CatalogUpstream = {
    server: server.name,
    transport: server.transport,
    allowSampling: server.allowSampling,
    allowElicitation: server.allowElicitation,
    ...(server.sessionAffinity ? { sessionAffinity: true } : {}),
  };
  if (server.url !== undefined) upstream.url = server.url;
  if (server.command !== undefined) upstream.command = server.command;
  if (server.args !== undefined) upstream.args = server.args;
  return upstream;
}

/**
 * Fold one tool event into that tool's catalog entry. Pure: the discovery service loads the
 * entry and the server, calls this, and stores the result with its checkpoint.
 */
export function evolveCatalogEntry(
  entry: CatalogEntry | undefined,
  event: Exclude<RegistryEvent, { type: 'ServerRegistered' }>,
  position: number,
  occurredAt: string,
  server: ServerRegisteredData | undefined,
): CatalogEntry {
  if (event.type === 'ToolVersionPublished') {
    const spec = event.data.spec;
    const base: CatalogEntry = entry ?? { name: spec.name, upstream: upstreamOf(server, spec.upstream.server), versions: [], position };
    const versions = base.versions.filter((v) => v.version !== spec.version);
    versions.push({ version: spec.version, status: 'active', quarantined: false, spec, publishedAt: occurredAt });
    return { ...base, upstream: upstreamOf(server, spec.upstream.server), versions: sortCatalogVersions(versions), position };
  }
  if (!entry) throw new Error(`${event.type} for a tool the catalog has never seen`);
  const versions = entry.versions.map((v) => {
    if (v.version !== event.data.version) return v;
    switch (event.type) {
      case 'ToolVersionDeprecated': {
        // A later deprecation revises the first (a sunset set afterwards): it was deprecated when first marked.
        const { reason, sunsetAt, replacement } = event.data;
        const deprecatedAt = v.deprecation?.deprecatedAt ?? occurredAt;
        return { ...v, status: 'deprecated' as const, deprecation: { reason, sunsetAt, replacement, deprecatedAt } };
      }
      case 'ToolVersionRetired':
        return { ...v, status: 'retired' as const };
      case 'ToolQuarantined':
        return { ...v, quarantined: true };
      case 'ToolVersionSunsetReached':
        // The retirement that follows in the same append carries the state change.
        return v;
    }
  });
  return { ...entry, versions, position };
}

/** A server's (re)registration changes how every one of its tools is reached. */
export function withUpstream(entry: CatalogEntry, server: ServerRegisteredData): CatalogEntry {
  return { ...entry, upstream: upstreamOf(server, server.name) };
}

/**
 * Each version is split once, not in every comparison: an entry holds every version of its tool
 * and is sorted on every publish, and splitting both sides of each of n log n comparisons was the
 * fold's largest cost on a tool with hundreds of versions (profiled). Same comparisons, same order.
 */
export function sortCatalogVersions<T extends { version: string }>(versions: T[]): T[] {
  const keyed = versions.map((item) => ({ item, parts: versionParts(item) }));
  keyed.sort((a, b) => compareParts(a.parts, a.item.version, b.parts, b.item.version));
  return keyed.map((k) => k.item);
}

/**
 * Split once per version object: the fold carries a version's object from one entry to the next,
 * so only the new version is split on a publish (splitting all of them was still 2% of one, profiled).
 */
const partsOf = new WeakMap<{ version: string }, number[]>();

function versionParts(item: { version: string }): number[] {
  let parts = partsOf.get(item);
  if (parts === undefined) {
    parts = item.version.split(/[.+-]/).map(Number);
    partsOf.set(item, parts);
  }
  return parts;
}

function compareParts(pa: number[], a: string, pb: number[], b: string): number {
  for (let i = 0; i < 3; i += 1) if (pa[i] !== pb[i]) return pa[i] - pb[i];
  return a < b ? -1 : a > b ? 1 : 0;
}
