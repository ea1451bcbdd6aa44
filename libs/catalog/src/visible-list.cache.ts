import type { Principal } from '@estate/contracts';
import type { CatalogEntry } from '@estate/events';
import { listVisible, nextSunset, type Pins, type VisibleTool } from './catalog.view';

/** A catalog that can answer "what may this principal see" from a cache of its own. */
export interface VisibleCatalog extends Iterable<CatalogEntry> {
  /** `now` (epoch ms): a version whose sunset has passed is not offered. */
  visible(principal: Principal, pins: Pins, now?: number): readonly VisibleTool[];
}

export function isVisibleCatalog(entries: Iterable<CatalogEntry>): entries is VisibleCatalog {
  return typeof (entries as Partial<VisibleCatalog>).visible === 'function';
}

/**
 * Everything a filtered list depends on, and nothing else: the principal's id is left out on
 * purpose so principals with the same scopes, tenant and clearance share one list. Scopes are
 * a set (order and duplicates do not change visibility); pins are sorted by tool name. JSON keeps
 * the parts apart, so no scope or tenant text can forge another principal's key.
 */
export function visibilityKey(principal: Principal, pins: Pins): string {
  const scopes = [...new Set(principal.scopes)].sort();
  const pinned = Object.keys(pins).sort().map((name) => [name, pins[name]]);
  return JSON.stringify([scopes, principal.tenant ?? null, principal.clearance, pinned]);
}

export interface VisibleListCacheLimits {
  /** Distinct visibility keys kept. */
  keys: number;
  /** Tools kept over all lists, so a large catalog with many distinct principals stays bounded. */
  tools: number;
}

const DEFAULT_LIMITS: VisibleListCacheLimits = { keys: 1_000, tools: 250_000 };

/**
 * Resolved, filtered, sorted tool lists per visibility key for one generation of a catalog.
 * The owner bumps the generation on every change it applies; the first lookup after that drops
 * every list, so a publish, deprecation, retirement or quarantine is seen by the next request.
 * Lists are also dropped when a sunset date passes, as a retirement would drop them. Least
 * recently used lists go first when a limit is reached.
 */
export class VisibleListCache {
  private readonly lists = new Map<string, readonly VisibleTool[]>();
  private generation = Number.NaN;
  /** When the next sunset passes (epoch ms): the lists built before hold until then. */
  private validUntil = Number.NEGATIVE_INFINITY;
  private tools = 0;

  constructor(private readonly limits: VisibleListCacheLimits = DEFAULT_LIMITS) {}

  get size(): number {
    return this.lists.size;
  }

  list(entries: Iterable<CatalogEntry>, generation: number, principal: Principal, pins: Pins, now: number): readonly VisibleTool[] {
    let source = entries;
    if (generation !== this.generation || now >= this.validUntil) {
      // Read once for the next sunset and once to build: `entries` may be a one-pass iterator.
      const all = [...entries];
      source = all;
      this.reset(generation, nextSunset(all, now));
    }
    const key = visibilityKey(principal, pins);
    const hit = this.lists.get(key);
    if (hit) {
      this.lists.delete(key);
      this.lists.set(key, hit);
      return hit;
    }
    const built = Object.freeze(listVisible(source, principal, pins, now));
    this.lists.set(key, built);
    this.tools += built.length;
    this.evict();
    return built;
  }

  private reset(generation: number, validUntil: number): void {
    this.lists.clear();
    this.tools = 0;
    this.generation = generation;
    this.validUntil = validUntil;
  }

  private evict(): void {
    // Never evict the list just added (the last key), even when it alone exceeds the tool budget.
    while (this.lists.size > 1 && (this.lists.size > this.limits.keys || this.tools > this.limits.tools)) {
      const [oldest, list] = this.lists.entries().next().value as [string, readonly VisibleTool[]];
      this.lists.delete(oldest);
      this.tools -= list.length;
    }
  }
}
