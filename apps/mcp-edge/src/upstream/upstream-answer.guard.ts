import { randomBytes } from 'node:crypto';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { inspectPromptText, validate, type ContractIssue, type ToolSpec } from '@estate/contracts';
import type { UpstreamTextAction } from './upstream.config';

/**
 * What an upstream sends is checked like anything else from outside: it may not speak for the
 * estate (its `_meta` namespace), break the contract published for it, or hide instructions in
 * text a model reads.
 */

/** The `_meta` namespace only the edge may write: confirmation tokens, limits, validation reports. */
const ESTATE_META_PREFIX = 'io.estate/';

/** A short reference the caller is given for a failure whose details only the audit trail and the log keep. */
export function failureRef(): string {
  return randomBytes(6).toString('hex');
}

function withoutEstateKeys(meta: unknown): unknown {
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) return meta;
  return Object.fromEntries(Object.entries(meta).filter(([key]) => !key.startsWith(ESTATE_META_PREFIX)));
}

const hasEstateKey = (meta: unknown): boolean =>
  typeof meta === 'object' && meta !== null && Object.keys(meta).some((key) => key.startsWith(ESTATE_META_PREFIX));

const ENTRY_LISTS = ['content', 'contents', 'messages'] as const;

/** Whether the answer or an entry one level down claims an `io.estate/*` key: most answers do not. */
function claimsEstateMeta(answer: Record<string, unknown>): boolean {
  if (hasEstateKey(answer._meta)) return true;
  return ENTRY_LISTS.some((key) => {
    const list = answer[key];
    return Array.isArray(list) && list.some((item: unknown) => typeof item === 'object' && item !== null && hasEstateKey((item as { _meta?: unknown })._meta));
  });
}

/**
 * Without `io.estate/*` keys in the object's `_meta`, nor in the `_meta` of its entries one level
 * down (content, messages, contents). Every tools/call answer passes here, so an answer that
 * claims no such key is returned as it is, not copied.
 */
export function stripEstateMeta<T extends object>(answer: T): T {
  if (!claimsEstateMeta(answer as Record<string, unknown>)) return answer;
  const out = { ...answer } as Record<string, unknown>;
  if ('_meta' in out) out._meta = withoutEstateKeys(out._meta);
  for (const key of ENTRY_LISTS) {
    const list = out[key];
    if (!Array.isArray(list)) continue;
    out[key] = list.map((item: unknown) => {
      if (typeof item !== 'object' || item === null || !('_meta' in item)) return item;
      return { ...item, _meta: withoutEstateKeys((item as { _meta: unknown })._meta) };
    });
  }
  return out as T;
}

/**
 * Problems with a successful result against the published outputSchema: structured content must
 * be there and conform. An `isError` result is the tool's own account of a failure and is not held
 * to the schema (the MCP spec asks conformance of successful results only).
 */
export function outputSchemaProblems(spec: ToolSpec, result: CallToolResult): string[] {
  if (!spec.outputSchema || result.isError) return [];
  if (result.structuredContent === undefined) return ['$: structuredContent is missing although the tool publishes an outputSchema'];
  const checked = validate(spec.outputSchema, result.structuredContent);
  return checked.valid ? [] : checked.errors.map((e) => `${e.path}: ${e.message} (${e.keyword})`);
}

/** One piece of upstream text a model will read, and where it sits in the answer. */
export interface UpstreamText {
  path: string;
  text: string;
}

export interface TextVerdict {
  /** The issues found, for the log; empty when the text is clean. */
  issues: ContractIssue[];
  /** Under `strip`: the paths whose text is withheld. */
  withheld: Set<string>;
  refused: boolean;
}

/** The same rules as published descriptions, applied to prompts and resource text; what follows depends on the configured action. */
export function judgeUpstreamText(texts: UpstreamText[], action: UpstreamTextAction): TextVerdict {
  const issues = texts.flatMap(({ text, path }) => inspectPromptText(text, path));
  const withheld = action === 'strip' ? new Set(issues.map((i) => i.path)) : new Set<string>();
  return { issues, withheld, refused: action === 'refuse' && issues.length > 0 };
}

/** Put in place of upstream text the edge withholds. */
export const WITHHELD_TEXT = '[withheld by the estate: this text contained instructions aimed at the model]';
