import type { ContractIssue } from './contract.types';

/**
 * Rules for text a model reads (titles, descriptions, schema descriptions). That text is
 * prompt surface on every turn, so it must not hide instructions and must not describe
 * the control plane.
 */

// Zero-width and joiners, bidi embeddings/overrides/isolates, invisible operators, BOM, tag characters.
const HIDDEN_CHARACTERS =
  /[\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF\u{E0000}-\u{E007F}]/gu;

const INSTRUCTION_OVERRIDES: readonly RegExp[] = [
  /\bignore\s+(?:all\s+|any\s+)?(?:of\s+)?(?:the\s+|your\s+)?(?:previous|prior|above|earlier|preceding|other)\b/,
  /\bdisregard\s+(?:all\s+|any\s+)?(?:of\s+)?(?:the\s+|your\s+)?(?:previous|prior|above|earlier|preceding|other)\b/,
  /\bforget\s+(?:all\s+|everything\s+)?(?:you\s+|your\s+)?(?:previous|prior|above|earlier|instructions?)\b/,
  /\byou\s+must\s+(?:always|never)\b/,
  /\b(?:do\s+not|don't|never)\s+(?:tell|inform|mention\s+(?:this\s+)?to|reveal\s+(?:this\s+)?to|show)\s+the\s+user\b/,
  /\bsystem\s+prompt\b/,
  /\bnew\s+instructions?\s*:/,
  /<\s*\/?\s*(?:system|instructions?|important|admin)\s*>/,
];

/** Words that only describe the estate's controls; prose about the business never needs them. */
const METADATA_KEYWORDS: readonly RegExp[] = [
  /\bscopes?\s*[:=]/,
  /\brequired[\s_-]*scopes?/,
  /tenant/,
  /classification/,
  /\bclearance\b/,
  /\bowner\s*[:=]/,
  /\bowned\s+by\b/,
  /\b[a-z][\w.-]*:(?:read|write|admin|publish|delete|manage)\b/,
];

export interface PromptTextContext {
  /** The spec's own control-plane values (scopes, tenants, owner) that must not appear. */
  metadataValues: readonly string[];
}

export function inspectPromptText(text: string, path: string, context?: PromptTextContext): ContractIssue[] {
  const issues: ContractIssue[] = [];
  const hidden = hiddenCodePoints(text);
  if (hidden.length > 0) {
    issues.push({ path, code: 'hidden_characters', message: `contains invisible or bidirectional control characters (${hidden.join(', ')})` });
  }
  if (/<!--/.test(text)) {
    issues.push({ path, code: 'html_comment', message: 'contains an HTML comment, which a reader never sees but a model does' });
  }
  const normalised = normalise(text);
  if (INSTRUCTION_OVERRIDES.some((rule) => rule.test(normalised))) {
    issues.push({ path, code: 'instruction_override', message: 'contains an instruction aimed at the model rather than a description of the tool' });
  }
  const mentions = context ? metadataMentions(normalised, context.metadataValues) : [];
  if (mentions.length > 0) {
    issues.push({ path, code: 'platform_metadata', message: `mentions control-plane metadata (${mentions.join(', ')}); keep it in the spec's fields` });
  }
  return issues;
}

function hiddenCodePoints(text: string): string[] {
  const found = new Set<string>();
  for (const match of text.matchAll(HIDDEN_CHARACTERS)) {
    const codePoint = match[0].codePointAt(0) ?? 0;
    found.add(`U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`);
  }
  return [...found].sort();
}

/** Strip hidden characters first so "ig\u200Bnore previous" is still caught. */
function normalise(text: string): string {
  return text.replace(HIDDEN_CHARACTERS, '').normalize('NFKC').replace(/\s+/g, ' ').toLowerCase();
}

function metadataMentions(normalised: string, values: readonly string[]): string[] {
  const found = new Set<string>();
  for (const rule of METADATA_KEYWORDS) {
    const match = rule.exec(normalised);
    if (match) found.add(JSON.stringify(match[0].trim()));
  }
  for (const value of values) {
    if (isDistinctiveIdentifier(value) && containsToken(normalised, value.toLowerCase())) {
      found.add(JSON.stringify(value));
    }
  }
  return [...found].sort();
}

/**
 * Plain words (a tenant called "wholesale") are also ordinary business vocabulary — the
 * good description "a wholesale payment … not retail transfers" must pass — so only values
 * that look like identifiers (with `:`, `-`, `_`, `.`, `/` or digits) are matched verbatim.
 */
function isDistinctiveIdentifier(value: string): boolean {
  return /[:_./\d-]/.test(value) && value.trim().length > 1;
}

function containsToken(haystack: string, needle: string): boolean {
  const escaped = needle.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![\\w:-])${escaped}(?![\\w:-])`).test(haystack);
}
