import { parseInstant, TOOL_NAME_PATTERN } from '@estate/contracts';
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
  /**
   * … or from this instant, as an ISO 8601 time, by discovery's `?at=` rule: from the first change
   * recorded with a later time, and then every change after it, whatever its own time.
   */
  sinceTime?: string;
}

export interface FeedFilterInput {
  tools?: unknown;
  types?: unknown;
  since?: unknown;
}

export type FeedFilterResult = { ok: true; filter: FeedFilter } | { ok: false; path: string; message: string };

/**
 * A glob: `*`, or a namespace prefix of non-empty dot-separated segments, the last of which may be
 * cut short (`bank.*`, `bank.tr*`), then one `*` at the end. At most as long as a tool name.
 */
const TOOL_GLOB = /^(?=.{1,128}$)(?:[A-Za-z0-9_-]+\.)*[A-Za-z0-9_-]*\*$/;

export const TOOL_PATTERN_RULE = 'a tool name (1-128 of A-Z a-z 0-9 _ . -) or a glob ending in one * after whole segments, such as bank.* or bank.tr* (no empty segment, no * elsewhere)';

const SINCE_RULE = 'a feed position (integer) or an ISO 8601 date-time with a time zone (Z or ±hh:mm), such as 2026-12-02T03:00:00Z';

/**
 * Whether a `tools` entry can mean something: a name the registry could publish (TOOL_NAME_PATTERN),
 * or a well-formed glob. `qa..*`, `.*`, `*.lookup` and `a*b` are refused rather than matching nothing.
 */
export function isToolPattern(pattern: string): boolean {
  return pattern.includes('*') ? TOOL_GLOB.test(pattern) : TOOL_NAME_PATTERN.test(pattern);
}
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
 * Parses a filter from query parameters or a JSON body. `tools` are names or well-formed globs;
 * `types` accepts CloudEvents types or the estate's own names (`ToolVersionDeprecated`), checked
 * against `knownTypes`; `since` is a feed position (a non-negative integer) or an ISO 8601
 * date-time with its zone. The first problem is answered with its path under `base`.
 */
export function parseFeedFilter(input: FeedFilterInput, knownTypes: readonly string[], base = ''): FeedFilterResult {
  const tools = listOf(input.tools, `${base}tools`);
  if (!Array.isArray(tools)) return { ok: false, ...tools };
  const badTool = tools.findIndex((tool) => !isToolPattern(tool));
  if (badTool >= 0) return { ok: false, path: `${base}tools[${badTool}]`, message: TOOL_PATTERN_RULE };
  const rawTypes = listOf(input.types, `${base}types`);
  if (!Array.isArray(rawTypes)) return { ok: false, ...rawTypes };
  const known = new Map(knownTypes.flatMap((type) => [[type, cloudEventType(type)], [cloudEventType(type), cloudEventType(type)]]));
  const badType = rawTypes.findIndex((type) => !known.has(type));
  if (badType >= 0) return { ok: false, path: `${base}types[${badType}]`, message: `unknown event type; one of ${knownTypes.map(cloudEventType).join(', ')}` };
  const types = [...new Set(rawTypes.map((type) => known.get(type) as string))];
  const filter: FeedFilter = { tools, types };
  if (input.since !== undefined && input.since !== '') {
    const since = String(input.since);
    const instant = /^\d{1,15}$/.test(since) ? undefined : parseInstant(since);
    if (instant === undefined) filter.sincePosition = Number(since);
    // A time must say its zone: without one it would be read in the server's zone.
    else if (instant.ok && instant.withTime) filter.sinceTime = new Date(instant.time).toISOString();
    else return { ok: false, path: `${base}since`, message: SINCE_RULE };
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
