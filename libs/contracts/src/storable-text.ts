import type { ContractIssue } from './contract.types';
import { formatPath, type PathSegment } from './json-path.util';

/**
 * PostgreSQL stores neither U+0000 nor a lone UTF-16 surrogate in text (and jsonb refuses both
 * escapes), while JSON, JavaScript and the wire carry them happily. These helpers find such text
 * and turn it into a storable form before it reaches a column.
 */
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const UNSTORABLE_GLOBAL = new RegExp(UNSTORABLE.source, 'g');

export function hasUnstorableText(text: string): boolean {
  return UNSTORABLE.test(text);
}

/** The path of the first string (or key) in a JSON value that PostgreSQL cannot store; undefined when all can be. */
export function unstorableTextPath(value: unknown, path: PathSegment[] = [], depth = 0): string | undefined {
  if (typeof value === 'string') return hasUnstorableText(value) ? formatPath(path) : undefined;
  // Deeper than any contract goes: the JSON parser's own limits apply long before this.
  if (value === null || typeof value !== 'object' || depth > 256) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) {
      const found = unstorableTextPath(value[i], [...path, i], depth + 1);
      if (found) return found;
    }
    return undefined;
  }
  for (const [key, item] of Object.entries(value)) {
    if (hasUnstorableText(key)) return formatPath([...path, key]);
    const found = unstorableTextPath(item, [...path, key], depth + 1);
    if (found) return found;
  }
  return undefined;
}

/** Replaces each unstorable character with its JSON escape (`\u0000`, `\ud800`); other text is unchanged. */
export function escapeUnstorable(text: string): string {
  return text.replace(UNSTORABLE_GLOBAL, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * The publishing rule on text: a spec holding U+0000 or a lone surrogate anywhere (a key or a
 * value) is refused with the path of the first one, so such text never becomes a stored fact.
 */
export function storableTextIssues(input: unknown): ContractIssue[] {
  const path = unstorableTextPath(input);
  if (path === undefined) return [];
  return [{ path, code: 'unstorable_text', message: 'contains U+0000 or a lone UTF-16 surrogate, which cannot be stored' }];
}
