import { isVisible, resolveVersion, type Principal } from '@estate/contracts';
import type { CatalogEntry, CatalogVersion } from '@estate/events';

/** Version constraints a client pinned: tool name → semver range or exact version. */
export type Pins = Readonly<Record<string, string>>;

/**
 * The version of a tool this principal gets: only versions it may see (each version carries its
 * own scopes, tenants and classification), never quarantined or retired ones, deprecated ones only
 * by exact pin, otherwise the newest that satisfies the pin. Unpinned, only a stable version: a
 * pre-release is reached by a pin alone (resolveVersion), so unpinned callers, discovery's answers
 * at any instant and the edge's computed successor all agree.
 */
export function resolveForPrincipal(entry: CatalogEntry, principal: Principal, pin?: string): CatalogVersion | undefined {
  const candidates = entry.versions.filter((v) => !v.quarantined && isVisible(principal, v.spec));
  if (candidates.length === 0) return undefined;
  const chosen = resolveVersion(candidates, pin);
  return chosen === undefined ? undefined : candidates.find((v) => v.version === chosen);
}

export interface VisibleTool {
  entry: CatalogEntry;
  version: CatalogVersion;
}

/** Every tool the principal may see, sorted by name. Filtering happens before anything is built. */
export function listVisible(entries: Iterable<CatalogEntry>, principal: Principal, pins: Pins = {}): VisibleTool[] {
  const visible: VisibleTool[] = [];
  for (const entry of entries) {
    const version = resolveForPrincipal(entry, principal, pins[entry.name]);
    if (version) visible.push({ entry, version });
  }
  return visible.sort((a, b) => (a.entry.name < b.entry.name ? -1 : a.entry.name > b.entry.name ? 1 : 0));
}
