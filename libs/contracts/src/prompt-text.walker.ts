import type { ContractIssue } from './contract.types';
import { appendPath, isRecord } from './json-path.util';
import { CACHED_TEXT_MAX_CHARS } from './prompt-text.cache';
import { inspectPromptText, type PromptTextContext, type PromptTextRuleId } from './prompt-text.rules';

/** Keywords whose strings are one-line labels: no line breaks or tabs there either. */
const LINE_KEYWORDS: ReadonlySet<string> = new Set(['title', 'type', 'format', '$ref', '$id', '$anchor', '$schema']);
/** Regular expressions may legitimately mix scripts (`[a-zа-я]`); every other rule applies. */
const REGEX_SKIP: readonly PromptTextRuleId[] = ['mixed_script'];

interface Pending {
  value: unknown;
  path: string;
  key: string | number | undefined;
  parentKey: string | number | undefined;
}

/**
 * Applies the prompt-text rules to every string in a JSON value and to every object key: in a
 * tool schema that covers descriptions and titles but also `$comment`, `default`, `examples`,
 * `enum`, `const` and property names, all of which reach the model. A refused key is reported
 * at the path of its member. Iterative, so a deeply nested value cannot exhaust the stack.
 */
export function inspectPromptTree(root: unknown, path: string, context: PromptTextContext = {}): ContractIssue[] {
  const issues: ContractIssue[] = [];
  const inspect = memoised();
  const stack: Pending[] = [{ value: root, path, key: undefined, parentKey: undefined }];
  while (stack.length > 0) {
    const { value, path: at, key, parentKey } = stack.pop() as Pending;
    if (typeof value === 'string') {
      issues.push(...inspect(value, at, valueContext(context, key, parentKey)));
    } else if (Array.isArray(value)) {
      value.forEach((item, index) => stack.push({ value: item, path: appendPath(at, index), key: index, parentKey: key }));
    } else if (isRecord(value)) {
      for (const [childKey, child] of Object.entries(value)) {
        const childPath = appendSafePath(at, childKey);
        const keyIssues = inspect(childKey, childPath, keyContext(context, key));
        issues.push(...keyIssues.map((issue) => ({ ...issue, message: `the key ${issue.message}` })));
        stack.push({ value: child, path: childPath, key: childKey, parentKey: key });
      }
    }
  }
  return issues;
}

/**
 * Schemas repeat the same keys and words ("type", "string"): each is inspected once per walk.
 * inspectPromptText keeps the verdicts of short texts for the whole process already, so only the
 * long ones it does not keep are remembered here (a schema repeating a long text is judged once).
 */
function memoised(): (text: string, path: string, context: PromptTextContext) => ContractIssue[] {
  const seen = new Map<string, ContractIssue[]>();
  return (text, path, context) => {
    if (text.length <= CACHED_TEXT_MAX_CHARS) return inspectPromptText(text, path, context);
    const key = JSON.stringify([text, context.kind, context.skip, context.metadataValues]);
    let found = seen.get(key);
    if (!found) {
      found = inspectPromptText(text, '', context);
      seen.set(key, found);
    }
    return found.map((issue) => ({ ...issue, path }));
  };
}

function valueContext(context: PromptTextContext, key: PathKey, parentKey: PathKey): PromptTextContext {
  const inArray = typeof key === 'number';
  const keyword = inArray ? parentKey : key;
  return {
    ...context,
    kind: !inArray && typeof keyword === 'string' && LINE_KEYWORDS.has(keyword) ? 'line' : context.kind,
    skip: keyword === 'pattern' ? [...(context.skip ?? []), ...REGEX_SKIP] : context.skip,
  };
}

type PathKey = string | number | undefined;

function keyContext(context: PromptTextContext, parentKey: PathKey): PromptTextContext {
  const skip = parentKey === 'patternProperties' ? [...(context.skip ?? []), ...REGEX_SKIP] : context.skip;
  return { ...context, kind: 'line', skip, metadataValues: undefined };
}

/**
 * Like `appendPath`, but a key holding invisible or control characters is written with
 * `\u` escapes, so the path itself never carries the hidden payload (it stays valid JSON,
 * so paths still sort and parse).
 */
export function appendSafePath(base: string, key: string): string {
  const path = appendPath(base, key);
  return path.replace(/[\p{C}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]/gu, (character) => {
    const codePoint = character.codePointAt(0) ?? 0;
    if (codePoint <= 0xffff) return `\\u${codePoint.toString(16).padStart(4, '0')}`;
    const high = Math.floor((codePoint - 0x10000) / 0x400) + 0xd800;
    const low = ((codePoint - 0x10000) % 0x400) + 0xdc00;
    return `\\u${high.toString(16)}\\u${low.toString(16)}`;
  });
}
