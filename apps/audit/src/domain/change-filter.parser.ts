import { TOOL_NAME_PATTERN } from '@estate/contracts';
import { parseFeedFilter, type FeedFilterInput, type FeedFilterResult } from '@estate/events';
import { parseInstant } from './audit-query.parser';

/**
 * A glob: `*`, or a namespace prefix of non-empty dot-separated segments, the last of which may be
 * cut short (`bank.*`, `bank.tr*`), then one `*` at the end. At most as long as a tool name.
 */
const TOOL_GLOB = /^(?=.{1,128}$)(?:[A-Za-z0-9_-]+\.)*[A-Za-z0-9_-]*\*$/;

export const TOOL_PATTERN_RULE = 'a tool name (1-128 of A-Z a-z 0-9 _ . -) or a glob ending in one * after whole segments, such as bank.* or bank.tr* (no empty segment, no * elsewhere)';

/**
 * Whether a `tools` entry can mean something: a name the registry could publish (TOOL_NAME_PATTERN),
 * or a well-formed glob. `qa..*`, `.*`, `*.lookup` and `a*b` are refused rather than matching nothing.
 */
export function isToolPattern(pattern: string): boolean {
  return pattern.includes('*') ? TOOL_GLOB.test(pattern) : TOOL_NAME_PATTERN.test(pattern);
}

const SINCE_RULE = 'a feed position (integer) or an ISO 8601 date-time with a time zone (Z or ±hh:mm), such as 2026-12-02T03:00:00Z';

/**
 * The change feed's filter (SSE query or webhook body), stricter than the shared parser on two
 * points: tool patterns must be well formed, and a `since` time must say its zone (a time without
 * one would be read in the server's zone).
 */
export function parseChangeFilter(input: FeedFilterInput, knownTypes: readonly string[], base = ''): FeedFilterResult {
  const parsed = parseFeedFilter(input, knownTypes, base);
  if (!parsed.ok) return parsed;
  const bad = parsed.filter.tools.findIndex((pattern) => !isToolPattern(pattern));
  if (bad >= 0) return { ok: false, path: `${base}tools[${bad}]`, message: TOOL_PATTERN_RULE };
  if (parsed.filter.sinceTime !== undefined) {
    const since = parseInstant(String(input.since));
    if (!since.ok || !since.withTime) return { ok: false, path: `${base}since`, message: SINCE_RULE };
  }
  return parsed;
}
