import { foldConfusables } from './confusable.table';

/**
 * What a model reads is not what a reviewer sees: invisible characters carry text (tag
 * characters spell ASCII, variation selectors spell bytes), bidi controls reorder it, and
 * look-alike letters dodge word lists. This module finds the first kind and produces the
 * readings the rules run on, so "ignоre" (Cyrillic о) or "i g n o r e" read as "ignore".
 */

/**
 * Every format (Cf) and default-ignorable character, controls, surrogates, private use,
 * noncharacters, line/paragraph separators and the braille blank. \n and \t are tested apart.
 */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}\p{Cs}\p{Co}\p{Noncharacter_Code_Point}\p{Zl}\p{Zp}\u2800]/u;
const HIDDEN_ALL = new RegExp(HIDDEN.source, 'gu');
const BREAKS = /[\r\n\v\f\u0085\u2028\u2029]/g;

export interface HiddenCharacter {
  codePoint: number;
  /** What kind of character it is, for the refusal message. */
  label: string;
  /** UTF-16 index in the text. */
  index: number;
}

export interface HiddenCharacterOptions {
  /** Long text (descriptions) may use \n and \t; one-line text (titles, names) may not. */
  allowLineBreaks: boolean;
}

export function findHiddenCharacters(text: string, options: HiddenCharacterOptions): HiddenCharacter[] {
  const found: HiddenCharacter[] = [];
  for (const match of text.matchAll(HIDDEN_ALL)) {
    const character = match[0];
    if (options.allowLineBreaks && (character === '\n' || character === '\t')) continue;
    const codePoint = character.codePointAt(0) ?? 0;
    found.push({ codePoint, label: labelOf(codePoint, character), index: match.index ?? 0 });
  }
  return found;
}

export function isHiddenCharacter(character: string): boolean {
  return HIDDEN.test(character);
}

export function formatCodePoint(codePoint: number): string {
  return `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;
}

const NAMED: ReadonlyMap<number, string> = new Map([
  [0x00ad, 'soft hyphen'],
  [0x200b, 'zero-width space'],
  [0x200c, 'zero-width non-joiner'],
  [0x200d, 'zero-width joiner'],
  [0x2060, 'word joiner'],
  [0xfeff, 'byte order mark'],
  [0x180e, 'Mongolian vowel separator'],
  [0x2028, 'line separator'],
  [0x2029, 'paragraph separator'],
  [0x2800, 'braille blank'],
  [0x115f, 'Hangul filler'],
  [0x1160, 'Hangul filler'],
  [0x3164, 'Hangul filler'],
  [0xffa0, 'Hangul filler'],
]);

const BIDI = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;

function labelOf(codePoint: number, character: string): string {
  const named = NAMED.get(codePoint);
  if (named) return named;
  if (codePoint >= 0xe0000 && codePoint <= 0xe007f) return 'tag';
  if (isVariationSelector(codePoint)) return 'variation selector';
  if (BIDI.test(character)) return 'bidi control';
  if (codePoint >= 0xfff9 && codePoint <= 0xfffb) return 'interlinear annotation';
  if (/\p{Cc}/u.test(character)) return 'control';
  if (/\p{Cs}/u.test(character)) return 'lone surrogate';
  if (/\p{Co}/u.test(character)) return 'private use';
  if (/\p{Noncharacter_Code_Point}/u.test(character)) return 'noncharacter';
  if (/\p{Cf}/u.test(character)) return 'format';
  return 'invisible';
}

function isVariationSelector(codePoint: number): boolean {
  return (codePoint >= 0xfe00 && codePoint <= 0xfe0f) || (codePoint >= 0xe0100 && codePoint <= 0xe01ef) ||
    (codePoint >= 0x180b && codePoint <= 0x180d) || codePoint === 0x180f;
}

/** Tag characters U+E0020-U+E007E mirror printable ASCII: decoding shows the smuggled text. */
export function decodeTagText(text: string): string {
  let out = '';
  for (const character of text) {
    const codePoint = character.codePointAt(0) ?? 0;
    if (codePoint >= 0xe0020 && codePoint <= 0xe007e) out += String.fromCharCode(codePoint - 0xe0000);
  }
  return out;
}

/** One way of reading a text; `label` says how it was read, for refusal messages. */
export interface TextReading {
  label: 'as written' | 'with look-alike letters folded' | 'with spaced letters joined';
  text: string;
  /**
   * Only the runs of evenly spaced letters, glued ("disregardallpriorrules"): word ends are
   * unknown there, so the rules match them without their end-of-word checks.
   */
  glued?: boolean;
}

/**
 * The readings the rules run on, each case-preserving (rules match case-insensitively, except
 * the capitalised role markers): NFKC without hidden characters; that text folded (marks
 * dropped, look-alikes mapped to Latin); and both with spaced single letters joined. Scripts
 * that folding would garble (Cyrillic, CJK) are still read as written. Duplicates are dropped.
 */
export function readingsOf(text: string): TextReading[] {
  // Plain ASCII reads the same folded (every look-alike and mark is beyond ASCII), and text
  // without a run of spaced letters reads the same squeezed: most texts need one reading.
  const plain = PLAIN_ASCII.test(text);
  const base = plain ? text : readBase(text);
  const folded = plain ? base : foldText(base);
  const written = collapse(base);
  if (plain && !SPACED_LETTER_RUN.test(base)) return [{ label: 'as written', text: written }];
  const squeezed = collapse(squeeze(base));
  const readings: TextReading[] = [
    { label: 'as written', text: written },
    { label: 'with look-alike letters folded', text: plain ? written : collapse(folded) },
    { label: 'with spaced letters joined', text: squeezed },
    { label: 'with spaced letters joined', text: plain ? squeezed : collapse(squeeze(folded)) },
    { label: 'with spaced letters joined', text: gluedRuns(folded), glued: true },
  ];
  const seen = new Set<string>([readings[0].text]);
  // The first reading is always kept (even empty); later ones only when they differ.
  return readings.filter((reading, index) => index === 0 || (reading.text !== '' && !seen.has(reading.text) && Boolean(seen.add(reading.text))));
}

export interface NormalisedText {
  /** NFKC, hidden characters removed, line breaks unified, runs of spaces collapsed. */
  nfkc: string;
  /** `nfkc` without combining marks, look-alike letters mapped to Latin, lowercased. */
  folded: string;
  /** `folded` with runs of single letters joined ("i g n o r e" → "ignore"). */
  squeezed: string;
}

export function normalisePromptText(text: string): NormalisedText {
  const plain = PLAIN_ASCII.test(text);
  const base = plain ? text : readBase(text);
  const folded = plain ? base : foldText(base);
  return { nfkc: collapse(base), folded: collapse(folded).toLowerCase(), squeezed: collapse(squeeze(folded)).toLowerCase() };
}

/** Line breaks unified, hidden characters dropped (so "ig\u200Bnore" reads "ignore"), NFKC. */
function readBase(text: string): string {
  return text
    .replace(BREAKS, '\n')
    .replace(HIDDEN_ALL, (character) => (character === '\n' || character === '\t' ? character : ''))
    .normalize('NFKC');
}

function collapse(text: string): string {
  // Only a space-like character other than a space, or two in a row, changes anything.
  return SPACING_TO_COLLAPSE.test(text) ? text.replace(/[^\S\n]+/g, ' ') : text;
}

const SPACING_TO_COLLAPSE = /[^\S\n ]| {2}/;

function foldText(text: string): string {
  return foldConfusables(text.normalize('NFKD').replace(/\p{M}/gu, '')).normalize('NFC');
}

/** Four or more single letters, each apart from the next by one to three non-alphanumerics. */
const SPACED_LETTERS = /(?<![\p{L}\p{N}])\p{L}(?:[^\p{L}\p{N}\n]{1,3}\p{L}){3,}(?![\p{L}\p{N}])/gu;
const SPACED_LETTER_RUN = new RegExp(SPACED_LETTERS.source, 'u');

/**
 * Printable ASCII, line feeds and tabs: nothing hidden, no line break to unify, no mark or
 * look-alike to fold, and NFKC leaves it as it is, so it is its own base and folded text.
 */
const PLAIN_ASCII = /^[\x20-\x7e\n\t]*$/;

/**
 * "i g n o r e  p r e v i o u s" → " ignore previous ": letters are joined; a separator that
 * differs from the run's usual one (two spaces where one is usual, a space between dotted
 * letters) keeps a word break. Runs of uniform separators are glued into one word.
 */
export function squeeze(text: string): string {
  return text.replace(SPACED_LETTERS, (run) => {
    const letters = run.match(/\p{L}/gu) ?? [];
    const separators = run.split(/\p{L}/u).slice(1, -1);
    const usual = mostFrequent(separators);
    return ` ${letters.map((letter, index) => (index > 0 && separators[index - 1] !== usual ? ' ' : '') + letter).join('')} `;
  });
}

function gluedRuns(text: string): string {
  return [...text.matchAll(SPACED_LETTERS)].map(([run]) => ` ${run.replace(/[^\p{L}]/gu, '')} `).join('\n');
}

function mostFrequent(values: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  let best = values[0] ?? '';
  for (const [value, count] of counts) {
    const bestCount = counts.get(best) ?? 0;
    if (count > bestCount || (count === bestCount && value.length < best.length)) best = value;
  }
  return best;
}
