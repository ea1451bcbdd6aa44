import { resolveForPrincipal, visibilityKey, withSunsetsApplied } from '@estate/catalog';
import { isVisible, toMcpTool, type McpTool, type Principal } from '@estate/contracts';
import type { CatalogEntry, CatalogVersion } from '@estate/events';

/** One tool as a principal found it at an instant. */
export interface ToolAsOf extends McpTool {
  /** What an unpinned call got (the newest active stable version it may see); null when only a pin reached the tool. */
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
 * `at` (epoch ms): a version whose sunset had passed by then was retired, as the edge judged it,
 * even when the registry's sweep recorded the retirement later.
 */
export function toolsAsOf(entries: Iterable<CatalogEntry>, principal: Principal, answers: ToolAnswers = new WeakMap(), at?: number): ToolAsOf[] {
  const key = visibilityKey(principal, {});
  const tools: ToolAsOf[] = [];
  for (const stored of entries) {
    const entry = at === undefined ? stored : withSunsetsApplied(stored, at);
    const tool = remembered(answers, entry, key, () => toolAsOf(entry, principal));
    if (tool) tools.push(tool);
  }
  return tools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * Folds replace an entry object only when its tool changes, so folds at nearby instants share most
 * entries: an answer worked out once per entry and visibility is reused by every later query.
 * Weakly held (gone with the last fold that holds the entry), a few visibilities per entry.
 */
export type ToolAnswers = WeakMap<CatalogEntry, Map<string, ToolAsOf | null>>;
const VISIBILITIES_PER_ENTRY = 4;

function remembered(answers: ToolAnswers, entry: CatalogEntry, key: string, work: () => ToolAsOf | null): ToolAsOf | null {
  let known = answers.get(entry);
  if (!known) answers.set(entry, (known = new Map()));
  if (known.has(key)) return known.get(key) ?? null;
  const answer = work();
  known.set(key, answer);
  if (known.size > VISIBILITIES_PER_ENTRY) known.delete(known.keys().next().value as string);
  return answer;
}

function toolAsOf(entry: CatalogEntry, principal: Principal): ToolAsOf | null {
  const callable = callableVersions(entry, principal);
  if (callable.length === 0) return null;
  const unpinned = resolveForPrincipal(entry, principal);
  const shown = unpinned ?? callable[callable.length - 1];
  return {
    ...toMcpTool(shown.spec),
    version: unpinned?.version ?? null,
    status: unpinned?.status ?? null,
    callable: callable.map((v) => {
      const replacement = v.deprecation?.replacement;
      return {
        version: v.version, status: v.status,
        ...(v.deprecation?.sunsetAt ? { sunsetAt: v.deprecation.sunsetAt } : {}),
        // Named only when the principal may see that version too: never a trace of one hidden from it.
        ...(replacement !== undefined && mayName(entry, principal, replacement) ? { replacement } : {}),
      };
    }),
  };
}

function mayName(entry: CatalogEntry, principal: Principal, version: string): boolean {
  const named = entry.versions.find((v) => v.version === version);
  return named !== undefined && isVisible(principal, named.spec);
}

export function callableVersions(entry: CatalogEntry, principal: Principal): CatalogVersion[] {
  return entry.versions.filter((v) => !v.quarantined && v.status !== 'retired' && isVisible(principal, v.spec));
}
