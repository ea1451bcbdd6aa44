import { isVisible, resolveVersion, type Principal } from '@estate/contracts';
import type { CatalogEntry, CatalogVersion } from '@estate/events';

/** Version constraints a client pinned: tool name → semver range or exact version. */
export type Pins = Readonly<Record<string, string>>;

/**
 * The version of a tool this principal gets: only versions it may see (each version carries its
 * own scopes, tenants and classification), never quarantined or retired ones. With a pin, the
 * newest active version that satisfies it; when none is active, the newest deprecated one that
 * satisfies it (an exact pin or a range alike), so pinned callers keep working through the
 * migration window until the version retires. Unpinned, only an active stable version: a
 * pre-release is reached by a pin alone (resolveVersion), so unpinned callers, discovery's answers
 * at any instant and the edge's computed successor all agree. A sunset already passed counts as a
 * retirement only where the caller applies `withSunsetsApplied` (or passes `now` to listVisible).
 */
export function resolveForPrincipal(entry: CatalogEntry, principal: Principal, pin?: string): CatalogVersion | undefined {
  const candidates = entry.versions.filter((v) => !v.quarantined && isVisible(principal, v.spec));
  if (candidates.length === 0) return undefined;
  const chosen = resolveVersion(candidates, pin) ?? inMigrationWindow(candidates, pin);
  return chosen === undefined ? undefined : candidates.find((v) => v.version === chosen);
}

/**
 * The newest deprecated version a range pin admits, by resolveVersion's own range rule (pre-release
 * admission included) applied to the deprecated versions alone. An exact pin already reached its
 * deprecated version; a retired one is never offered.
 */
function inMigrationWindow(candidates: readonly CatalogVersion[], pin: string | undefined): string | undefined {
  if (pin === undefined) return undefined;
  const deprecated = candidates.filter((v) => v.status === 'deprecated').map((v) => ({ version: v.version, status: 'active' as const }));
  return deprecated.length === 0 ? undefined : resolveVersion(deprecated, pin);
}

/** Whether a deprecated version's sunset date is at or before `now` (epoch ms): it stops working then, sweep or not. */
export function sunsetPassed(version: CatalogVersion, now: number): boolean {
  const sunsetAt = version.status === 'deprecated' ? version.deprecation?.sunsetAt : undefined;
  return sunsetAt !== undefined && Date.parse(sunsetAt) <= now;
}

/**
 * The entry as it stands at `now`: a deprecated version whose sunset has passed reads as retired,
 * before the registry's sweep (which runs every minute) retires it by event. The same object when
 * no sunset has passed, so the hot path copies nothing.
 */
export function withSunsetsApplied(entry: CatalogEntry, now: number): CatalogEntry {
  if (!entry.versions.some((v) => sunsetPassed(v, now))) return entry;
  return { ...entry, versions: entry.versions.map((v) => (sunsetPassed(v, now) ? { ...v, status: 'retired' as const } : v)) };
}

/** The earliest sunset still ahead of `now` among `entries` (epoch ms), or Infinity: until then no list changes by time alone. */
export function nextSunset(entries: Iterable<CatalogEntry>, now: number): number {
  let next = Number.POSITIVE_INFINITY;
  for (const entry of entries) {
    for (const v of entry.versions) {
      const at = v.status === 'deprecated' && v.deprecation?.sunsetAt !== undefined ? Date.parse(v.deprecation.sunsetAt) : Number.NaN;
      if (at > now && at < next) next = at;
    }
  }
  return next;
}

export interface VisibleTool {
  entry: CatalogEntry;
  version: CatalogVersion;
}

/**
 * Every tool the principal may see, sorted by name. Filtering happens before anything is built.
 * `now` (epoch ms) retires versions whose sunset has passed; without it, statuses are read as stored.
 */
export function listVisible(entries: Iterable<CatalogEntry>, principal: Principal, pins: Pins = {}, now?: number): VisibleTool[] {
  const visible: VisibleTool[] = [];
  for (const stored of entries) {
    const entry = now === undefined ? stored : withSunsetsApplied(stored, now);
    const version = resolveForPrincipal(entry, principal, pins[entry.name]);
    if (version) visible.push({ entry, version });
  }
  return visible.sort((a, b) => (a.entry.name < b.entry.name ? -1 : a.entry.name > b.entry.name ? 1 : 0));
}
