import { isVisibleCatalog, listVisible, type Pins, type VisibleTool } from '@estate/catalog';
import { toMcpTool, type Principal } from '@estate/contracts';
import type { CatalogEntry, CatalogVersion } from '@estate/events';
import type { SessionRevision } from '@estate/protocol';
import { WireError } from './wire-error';

export const PAGE_SIZE = 200;

type McpTool = ReturnType<typeof toMcpTool>;

export interface ToolPage {
  readonly tools: readonly McpTool[];
  readonly nextCursor?: string;
}

/*
 * A catalog version is immutable once received (the replica replaces whole entries), so its MCP
 * projection is built once and shared by every page that lists it; it goes with the version.
 */
const projections = new WeakMap<CatalogVersion, McpTool>();

function projectionOf(version: CatalogVersion): McpTool {
  let tool = projections.get(version);
  if (!tool) {
    tool = toMcpTool(version.spec);
    projections.set(version, tool);
  }
  return tool;
}

function decodeCursor(cursor: string): string {
  try {
    const decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { after?: unknown };
    if (typeof decoded.after === 'string') return decoded.after;
  } catch {
    // reported below
  }
  throw new WireError(-32602, 'Invalid params: the cursor is not one this server issued');
}

/** Index of the first tool named after `after` in a list sorted by name (length when none). */
function firstAfter(visible: readonly VisibleTool[], after: string): number {
  let low = 0;
  let high = visible.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (visible[mid].entry.name > after) high = mid;
    else low = mid + 1;
  }
  return low;
}

/*
 * Pages of a cached list are built once and shared (frozen) by every session that asks for them,
 * so the transport can also serialise each one once (keyed by the page object). Only pages at a
 * multiple of PAGE_SIZE (the ones our own cursors reach) are kept: at most a handful per list.
 */
const pages = new WeakMap<readonly VisibleTool[], Map<number, ToolPage>>();

function buildPage(visible: readonly VisibleTool[], start: number): ToolPage {
  const slice = visible.slice(start, start + PAGE_SIZE);
  const tools = slice.map((t) => projectionOf(t.version));
  if (start + PAGE_SIZE >= visible.length) return { tools };
  return { tools, nextCursor: Buffer.from(JSON.stringify({ after: slice[slice.length - 1].entry.name })).toString('base64url') };
}

function sharedPage(visible: readonly VisibleTool[], start: number): ToolPage {
  let byStart = pages.get(visible);
  if (!byStart) {
    byStart = new Map();
    pages.set(visible, byStart);
  }
  let page = byStart.get(start);
  if (!page) {
    page = buildPage(visible, start);
    Object.freeze(page.tools);
    byStart.set(start, Object.freeze(page));
  }
  return page;
}

/**
 * One page of the tools this principal may see, filtered before any tool object is built. A
 * replica's view answers from its per-visibility cache (and shares the page); any other iterable
 * is filtered afresh.
 */
export function listToolPage(entries: Iterable<CatalogEntry>, principal: Principal, pins: Pins, cursor: string | undefined): ToolPage {
  const after = cursor === undefined ? undefined : decodeCursor(cursor);
  const cached = isVisibleCatalog(entries);
  const visible = cached ? entries.visible(principal, pins) : listVisible(entries, principal, pins);
  const start = after === undefined ? 0 : firstAfter(visible, after);
  return cached && start % PAGE_SIZE === 0 ? sharedPage(visible, start) : buildPage(visible, start);
}

/*
 * A page shaped for an older revision is kept with the page it came from, one per revision, so a
 * shared page stays shared (and serialised once) for those sessions too.
 */
const revisionPages = new WeakMap<ToolPage, Map<string, ToolPage>>();

/** The page as `revision` has tools; the newest revision's is the page itself. */
export function pageForRevision(page: ToolPage, revision: SessionRevision): ToolPage {
  if (revision.current) return page;
  let byRevision = revisionPages.get(page);
  if (!byRevision) {
    byRevision = new Map();
    revisionPages.set(page, byRevision);
  }
  let shaped = byRevision.get(revision.version);
  if (!shaped) {
    const tools = Object.freeze(page.tools.map((tool) => revision.tool(tool)));
    shaped = Object.freeze(page.nextCursor === undefined ? { tools } : { tools, nextCursor: page.nextCursor });
    byRevision.set(revision.version, shaped);
  }
  return shaped;
}
