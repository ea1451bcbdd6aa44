import { resolveForPrincipal } from '@estate/catalog';
import { toMcpTool, type McpTool, type Principal } from '@estate/contracts';
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
 * uses for now (libs/catalog): a version is callable when an exact pin on it resolves to it.
 */
export function toolsAsOf(entries: Iterable<CatalogEntry>, principal: Principal): ToolAsOf[] {
  const tools: ToolAsOf[] = [];
  for (const entry of entries) {
    const callable = entry.versions.filter((v) => resolveForPrincipal(entry, principal, v.version)?.version === v.version);
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
