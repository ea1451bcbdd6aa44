import { listVisible, type Pins } from '@estate/catalog';
import { toMcpTool, type Principal } from '@estate/contracts';
import type { CatalogEntry } from '@estate/events';
import { WireError } from './wire-error';

export const PAGE_SIZE = 200;

export interface ToolPage {
  tools: ReturnType<typeof toMcpTool>[];
  nextCursor?: string;
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

/** One page of the tools this principal may see, filtered before any tool object is built. */
export function listToolPage(entries: Iterable<CatalogEntry>, principal: Principal, pins: Pins, cursor: string | undefined): ToolPage {
  const after = cursor === undefined ? undefined : decodeCursor(cursor);
  const visible = listVisible(entries, principal, pins);
  const start = after === undefined ? 0 : visible.findIndex((t) => t.entry.name > after);
  const slice = start < 0 ? [] : visible.slice(start, start + PAGE_SIZE);
  const page: ToolPage = { tools: slice.map((t) => toMcpTool(t.version.spec)) };
  if (start >= 0 && start + PAGE_SIZE < visible.length) {
    page.nextCursor = Buffer.from(JSON.stringify({ after: slice[slice.length - 1].entry.name })).toString('base64url');
  }
  return page;
}
