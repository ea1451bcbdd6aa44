import { cloudEventType } from './cloud-event';

/**
 * What a subscriber asks to receive from the change feed (SSE or webhook): tool names or namespace
 * globs, event types, and where to start. Pure: parsed once, then applied to every event.
 */
export interface FeedFilter {
  /** Globs over tool names: `payments.*`, `payments.refund`, `*`. Empty means every tool. */
  tools: string[];
  /** CloudEvents types (`io.estate.tool.version.deprecated`). Empty means every type. */
  types: string[];
  /** Start after this feed position (exclusive) … */
  sincePosition?: number;
  /** … or at this instant (inclusive), as an ISO 8601 time. */
  sinceTime?: string;
}

export interface FeedFilterInput {
  tools?: unknown;
  types?: unknown;
  since?: unknown;
}

export type FeedFilterResult = { ok: true; filter: FeedFilter } | { ok: false; path: string; message: string };

const GLOB = /^[A-Za-z0-9_*][A-Za-z0-9_.*-]{0,199}$/;
const MAX_ENTRIES = 50;

/** A comma-separated query value or a JSON array of strings, as a list. */
function listOf(value: unknown, path: string): string[] | { path: string; message: string } {
  if (value === undefined || value === '') return [];
  const items = typeof value === 'string' ? value.split(',').map((item) => item.trim()).filter((item) => item !== '') : value;
  if (!Array.isArray(items) || items.some((item) => typeof item !== 'string')) return { path, message: 'must be a list of strings (or a comma-separated string)' };
  if (items.length > MAX_ENTRIES) return { path, message: `at most ${MAX_ENTRIES} entries` };
  return items as string[];
}

/**
 * Parses a filter from query parameters or a JSON body. `types` accepts CloudEvents types or the
 * estate's own names (`ToolVersionDeprecated`), checked against `knownTypes`; `since` is a feed
 * position (a non-negative integer) or an ISO 8601 time.
 */
export function parseFeedFilter(input: FeedFilterInput, knownTypes: readonly string[], base = ''): FeedFilterResult {
  const tools = listOf(input.tools, `${base}tools`);
  if (!Array.isArray(tools)) return { ok: false, ...tools };
  const badTool = tools.findIndex((tool) => !GLOB.test(tool));
  if (badTool >= 0) return { ok: false, path: `${base}tools[${badTool}]`, message: 'a tool name or a glob of letters, digits, _ . - and *' };
  const rawTypes = listOf(input.types, `${base}types`);
  if (!Array.isArray(rawTypes)) return { ok: false, ...rawTypes };
  const known = new Map(knownTypes.flatMap((type) => [[type, cloudEventType(type)], [cloudEventType(type), cloudEventType(type)]]));
  const badType = rawTypes.findIndex((type) => !known.has(type));
  if (badType >= 0) return { ok: false, path: `${base}types[${badType}]`, message: `unknown event type; one of ${knownTypes.map(cloudEventType).join(', ')}` };
  const types = [...new Set(rawTypes.map((type) => known.get(type) as string))];
  const filter: FeedFilter = { tools, types };
  if (input.since !== undefined && input.since !== '') {
    const since = String(input.since);
    if (/^\d{1,15}$/.test(since)) filter.sincePosition = Number(since);
    else if (/^\d{4}-\d{2}-\d{2}T/.test(since) && !Number.isNaN(Date.parse(since))) filter.sinceTime = new Date(since).toISOString();
    else return { ok: false, path: `${base}since`, message: 'a feed position (integer) or an ISO 8601 time' };
  }
  return { ok: true, filter };
}

function globToRegExp(glob: string): RegExp {
  return new RegExp(`^${glob.replace(/[.+?^${}()|[\]\\-]/g, '\\$&').replace(/\*/g, '.*')}$`);
}

const compiled = new WeakMap<FeedFilter, RegExp[]>();

/** Whether an event (its CloudEvents type and subject tool, if any) passes the filter's tool and type parts. */
export function feedFilterAdmits(filter: FeedFilter, event: { type: string; subject?: string }): boolean {
  if (filter.types.length > 0 && !filter.types.includes(event.type)) return false;
  if (filter.tools.length === 0) return true;
  if (event.subject === undefined) return false;
  let patterns = compiled.get(filter);
  if (!patterns) {
    patterns = filter.tools.map(globToRegExp);
    compiled.set(filter, patterns);
  }
  const subject = event.subject;
  return patterns.some((pattern) => pattern.test(subject));
}
