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

/** Tool data, held to the published outputSchema: a `_meta` key there is the tool's data, not protocol. */
const DATA_KEYS: ReadonlySet<string> = new Set(['structuredContent']);

/** Every object and array of an answer, tool data left out; without recursion, so depth cannot exhaust the stack. */
function* nodesOf(answer: unknown): Generator<Record<string, unknown> | unknown[]> {
  const stack: unknown[] = [answer];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== 'object' || node === null) continue;
    yield node as Record<string, unknown> | unknown[];
    if (Array.isArray(node)) stack.push(...node);
    else for (const [key, value] of Object.entries(node)) if (!DATA_KEYS.has(key)) stack.push(value);
  }
}

/** Whether any `_meta` anywhere in the answer claims an `io.estate/*` key: most answers do not. */
function claimsEstateMeta(answer: unknown): boolean {
  for (const node of nodesOf(answer)) if (!Array.isArray(node) && hasEstateKey(node._meta)) return true;
  return false;
}

/**
 * Without `io.estate/*` keys in any `_meta` of the answer: its own, its content blocks', an
 * embedded resource's, a prompt message's content's, however deep (a QA pass slipped a forged
 * confirmation through two levels down). The answer is the upstream's, parsed for this call
 * alone, so the offending `_meta` objects are replaced in place, without recursion. Every
 * tools/call answer passes here; one that claims no such key is left as it is.
 */
export function stripEstateMeta<T extends object>(answer: T): T {
  if (!claimsEstateMeta(answer)) return answer;
  for (const node of nodesOf(answer)) {
    if (!Array.isArray(node) && hasEstateKey(node._meta)) node._meta = withoutEstateKeys(node._meta);
  }
  return answer;
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
