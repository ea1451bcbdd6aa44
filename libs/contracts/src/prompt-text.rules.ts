import type { ContractIssue } from './contract.types';
import { isConfusable } from './confusable.table';
import { PromptTextVerdicts } from './prompt-text.cache';
import {
  COMMENT_PATTERNS, EXFILTRATION_PATTERNS, HTML_PATTERNS, OVERRIDE_PATTERNS, ROLE_MARKER_PATTERNS, SECRET_PATTERNS,
} from './prompt-text.patterns';
import { E } from './prompt-text.grammar';
import { decodeTagText, findHiddenCharacters, formatCodePoint, normalisePromptText, readingsOf, type TextReading } from './prompt-text.unicode';
import { excerpt } from './text-excerpt.util';

/**
 * Rules for text a model reads (titles, descriptions, every string of a schema, prompts and
 * resources relayed from upstreams). That text is prompt surface on every turn, so it must not
 * hide characters, address the model, imitate a conversation, carry markup or links a client
 * fetches, or describe the control plane. Each issue names its rule (the code), the path and a
 * short escaped excerpt of what was found; the rules are plain patterns, so every refusal can
 * be explained and reproduced.
 */

export type PromptTextRuleId =
  | 'hidden_characters'
  | 'mixed_script'
  | 'instruction_override'
  | 'role_marker'
  | 'exfiltration_link'
  | 'html_markup'
  | 'html_comment'
  | 'secret_reference'
  | 'platform_metadata';

/** Every rule with what it refuses, in the order the rules run. */
export const PROMPT_TEXT_RULES: Readonly<Record<PromptTextRuleId, string>> = {
  hidden_characters: 'invisible, format, tag, variation-selector, filler, separator or control characters',
  mixed_script: 'a word mixing Latin letters with Cyrillic or Greek look-alikes',
  instruction_override: 'an instruction aimed at the model (override, new role, secrecy towards the user), in several languages',
  role_marker: 'a chat-template or transcript role marker such as SYSTEM:, [INST] or <|im_start|>',
  exfiltration_link: 'a markdown image, or a link whose URL carries a query a client would send',
  html_markup: 'HTML elements, script URLs or event handlers',
  html_comment: 'a comment a rendered view hides but a model reads',
  secret_reference: 'the path of a well-known credential file',
  platform_metadata: 'control-plane metadata: scopes, tenants, classification, owner',
};

export interface PromptTextContext {
  /** The spec's own control-plane values (scopes, tenants, owner) that must not appear. */
  metadataValues?: readonly string[];
  /** 'line' for titles and names (no line breaks or tabs); 'block', the default, for long text. */
  kind?: 'line' | 'block';
  /** Rules to leave out, e.g. `mixed_script` for a regular expression. */
  skip?: readonly PromptTextRuleId[];
}

interface PatternRule {
  id: Exclude<PromptTextRuleId, 'hidden_characters' | 'mixed_script' | 'platform_metadata'>;
  patterns: readonly RegExp[];
  says: string;
  /** Markup, comments and links inside `code` are shown as text, never rendered or fetched. */
  outsideCode?: boolean;
}

const PATTERN_RULES: readonly PatternRule[] = [
  { id: 'instruction_override', patterns: OVERRIDE_PATTERNS, says: 'addresses the model instead of describing the tool' },
  { id: 'role_marker', patterns: ROLE_MARKER_PATTERNS, says: 'imitates a chat-template role marker' },
  { id: 'exfiltration_link', patterns: EXFILTRATION_PATTERNS, says: 'has a markdown image or a link with a query string that a client could send data to', outsideCode: true },
  { id: 'html_markup', patterns: HTML_PATTERNS, says: 'contains HTML markup or script', outsideCode: true },
  { id: 'html_comment', patterns: COMMENT_PATTERNS, says: 'contains a comment, which a reader never sees but a model does', outsideCode: true },
  { id: 'secret_reference', patterns: SECRET_PATTERNS, says: 'names a credential file' },
];

/** One for the process: the registry's publishes and the edge's relayed texts repeat the same texts. */
const verdicts = new PromptTextVerdicts();

export function inspectPromptText(text: string, path: string, context: PromptTextContext = {}): ContractIssue[] {
  return verdicts.verdict(text, contextKey(context), path, () => judgePromptText(text, path, context));
}

/**
 * A walk passes the same metadata array with every text of a spec: its JSON is written once per
 * array, not once per text (serializing the whole context for each text was 2% of a publish).
 */
const metadataKeys = new WeakMap<readonly string[], string>();

/**
 * The verdict cache's context: the kind, the skipped rule ids (identifiers, no comma) and the
 * metadata as JSON, last. None holds U+0000 (JSON escapes it), which the cache relies on.
 */
function contextKey({ kind, skip, metadataValues }: PromptTextContext): string {
  let metadata = 'null';
  if (metadataValues !== undefined) {
    const known = metadataKeys.get(metadataValues);
    metadata = known ?? JSON.stringify(metadataValues);
    if (known === undefined) metadataKeys.set(metadataValues, metadata);
  }
  return `${kind ?? 'block'}\u0001${skip === undefined ? '' : skip.join(',')}\u0001${metadata}`;
}

function judgePromptText(text: string, path: string, context: PromptTextContext): ContractIssue[] {
  const skip = new Set(context.skip ?? []);
  const issues: ContractIssue[] = [];
  const add = (code: PromptTextRuleId, message: string) => {
    if (!skip.has(code)) issues.push({ path, code, message });
  };
  const hidden = hiddenCharactersMessage(text, context.kind ?? 'block');
  if (hidden) add('hidden_characters', hidden);
  const readings = readingsOf(text);
  const mixed = mixedScriptWords(readings[0].text);
  if (mixed.length > 0) add('mixed_script', `mixes Latin letters with Cyrillic or Greek look-alikes: ${mixed.join(', ')}`);
  // Code spans need a backtick: without one the readings are their own blanked copies.
  const outsideCode = readings.some((reading) => reading.text.includes('`')) ? readings.map(blankCode) : readings;
  for (const rule of PATTERN_RULES) {
    const found = firstMatch(rule.patterns, rule.outsideCode ? outsideCode : readings);
    if (found) add(rule.id, `${rule.says}: ${found}`);
  }
  const mentions = context.metadataValues ? metadataMentions(normalisePromptText(text).folded, context.metadataValues) : [];
  if (mentions.length > 0) add('platform_metadata', `mentions control-plane metadata (${mentions.join(', ')}); keep it in the spec's fields`);
  return issues;
}

/** True when no rule refuses the text. */
export function isCleanPromptText(text: string, context?: PromptTextContext): boolean {
  return inspectPromptText(text, '$', context).length === 0;
}

const MAX_LISTED = 6;

function hiddenCharactersMessage(text: string, kind: 'line' | 'block'): string | undefined {
  const hidden = findHiddenCharacters(text, { allowLineBreaks: kind === 'block' });
  if (hidden.length === 0) return undefined;
  const kinds = new Map<number, string>();
  for (const { codePoint, label } of hidden) kinds.set(codePoint, `${formatCodePoint(codePoint)} ${label}`);
  const listed = [...kinds.keys()].sort((a, b) => a - b).map((codePoint) => kinds.get(codePoint));
  const shown = listed.length > MAX_LISTED ? [...listed.slice(0, MAX_LISTED), `${listed.length - MAX_LISTED} more`] : listed;
  const first = hidden[0].index;
  const spelled = decodeTagText(text);
  return `contains invisible or control characters (${shown.join(', ')}) at ${excerpt(text, first, first + 1)}` +
    (spelled ? `; the tag characters spell ${excerpt(spelled)}` : '');
}

function firstMatch(patterns: readonly RegExp[], readings: readonly TextReading[]): string | undefined {
  for (const reading of readings) {
    for (const strict of patterns) {
      const pattern = reading.glued ? withoutWordEnds(strict) : strict;
      const match = pattern.exec(reading.text);
      if (!match) continue;
      const at = excerpt(reading.text, match.index, match.index + match[0].length);
      return reading.label === 'as written' ? at : `${at} (read ${reading.label})`;
    }
  }
  return undefined;
}

// An inline code span may run over one line ending (CommonMark joins it with a space), never a blank
// line: otherwise a line separator inside a span would expose its markup as if written outside code.
const CODE = /```[^`]{0,4000}```|`(?:[^`\n]|\n(?![ \t]*\n)){1,200}`/g;

/** Code spans and fences blanked out (same length, so excerpts still line up). */
function blankCode(reading: TextReading): TextReading {
  return { ...reading, text: reading.text.replace(CODE, (code) => ' '.repeat(code.length)) };
}

const looseVersions = new WeakMap<RegExp, RegExp>();

/** The pattern without its end-of-word checks, for glued runs of spaced letters. */
function withoutWordEnds(pattern: RegExp): RegExp {
  let loose = looseVersions.get(pattern);
  if (!loose) {
    loose = new RegExp(pattern.source.split(E).join(''), pattern.flags);
    looseVersions.set(pattern, loose);
  }
  return loose;
}

/** A run of letters mixing Latin with a Cyrillic letter, or with a Greek letter that looks Latin. */
function mixedScriptWords(written: string): string[] {
  if (!NOT_ASCII.test(written)) return [];
  const found = new Set<string>();
  for (const [word] of written.matchAll(/[\p{L}\p{M}]+/gu)) {
    if (!/\p{Script=Latin}/u.test(word)) continue;
    const foreign = [...word].some((c) => /\p{Script=Cyrillic}/u.test(c) || (/\p{Script=Greek}/u.test(c) && isConfusable(c)));
    if (foreign) found.add(excerpt(word));
    if (found.size === 3) break;
  }
  return [...found];
}

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

function metadataMentions(folded: string, values: readonly string[]): string[] {
  const found = new Set<string>();
  for (const rule of METADATA_KEYWORDS) {
    const match = rule.exec(folded);
    if (match) found.add(JSON.stringify(match[0].trim()));
  }
  for (const value of values) {
    if (isDistinctiveIdentifier(value) && containsToken(folded, value.toLowerCase())) {
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
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + 1)) {
    if (!TOKEN_CHARACTER.test(haystack.charAt(at - 1)) && !TOKEN_CHARACTER.test(haystack.charAt(at + needle.length))) return true;
  }
  return false;
}

/** What continues a token: a match with one of these beside it is part of a longer identifier. */
const TOKEN_CHARACTER = /^[\w:-]$/;
const NOT_ASCII = /[^\x00-\x7f]/;
