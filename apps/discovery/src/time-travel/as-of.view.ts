import { resolveForPrincipal } from '@estate/catalog';
import { isVisible, toMcpTool, type McpTool, type Principal } from '@estate/contracts';
import type { CatalogEntry, CatalogVersion } from '@estate/events';

/** One tool as a principal found it at an instant. */
export interface ToolAsOf extends McpTool {
  /** What an unpinned call got (the newest active version it may see); null when only a pin reached the tool. */
  version: string | null;
  status: CatalogVersion['status'] | null;
  /** Every version it could call, each by exact pin: deprecated ones included, retired and quarantined never. */
  callable: Array<{ version: string; status: CatalogVersion['status']; sunsetAt?: string; replacement?: string }>;
}

/**
 * The tools a principal could see and call in a folded catalog, by the same resolution discovery
 * uses for now (libs/catalog). A version is callable when an exact pin on it resolves to it: one
 * the principal may see, not quarantined, not retired (resolveForPrincipal's exact-pin rule,
 * written out once per tool instead of one resolution per version: on a catalog of 1,000 tools
 * that was most of an `at=` query's time; as-of.view.spec.ts holds the two to the same answer).
 */
export function toolsAsOf(entries: Iterable<CatalogEntry>, principal: Principal): ToolAsOf[] {
  const tools: ToolAsOf[] = [];
  for (const entry of entries) {
    const callable = callableVersions(entry, principal);
    if (callable.length === 0) continue;
    const unpinned = resolveForPrincipal(entry, principal);
    const shown = unpinned ?? callable[callable.length - 1];
    tools.push({
      ...toMcpTool(shown.spec),
      version: unpinned?.version ?? null,
      status: unpinned?.status ?? null,
      callable: callable.map((v) => ({ version: v.version, status: v.status, ...(v.deprecation?.sunsetAt ? { sunsetAt: v.deprecation.sunsetAt } : {}), ...(v.deprecation?.replacement ? { replacement: v.deprecation.replacement } : {}) })),
    });
  }
  return tools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

export function callableVersions(entry: CatalogEntry, principal: Principal): CatalogVersion[] {
  return entry.versions.filter((v) => !v.quarantined && v.status !== 'retired' && isVisible(principal, v.spec));
}
