import { isConfusable } from './confusable.table';

const EXCERPT_CONTEXT = 16;
const EXCERPT_MAX = 64;

/** Characters a reader could not see or could misread; they are shown as \u escapes. */
const OPAQUE = /[\p{C}\p{Z}\p{M}\p{Default_Ignorable_Code_Point}]/u;

/**
 * A short, quoted, escaped piece of `text` around [start, end): invisible and control
 * characters, and look-alike letters inside Latin words, appear as `\uXXXX`, so a refusal
 * shows exactly what was found and never carries the hidden payload into a log or a terminal.
 */
export function excerpt(text: string, start = 0, end = text.length): string {
  const from = Math.max(0, start - EXCERPT_CONTEXT);
  const to = Math.min(text.length, Math.max(end, start + 1) + EXCERPT_CONTEXT);
  const slice = text.slice(from, to);
  const mixed = mixedWordPositions(slice);
  let body = '';
  let count = 0;
  let offset = 0;
  for (const character of slice) {
    const inMixedWord = mixed.has(offset);
    offset += character.length;
    if (count === EXCERPT_MAX) {
      body += '…';
      break;
    }
    body += escapeCharacter(character, inMixedWord);
    count += 1;
  }
  return `"${from > 0 ? '…' : ''}${body}${to < text.length && count < EXCERPT_MAX ? '…' : ''}"`;
}

/** Offsets of letters in words that mix Latin with other scripts: there look-alikes are escaped. */
function mixedWordPositions(text: string): Set<number> {
  const positions = new Set<number>();
  for (const match of text.matchAll(/[\p{L}\p{M}]+/gu)) {
    const word = match[0];
    if (!/\p{Script=Latin}/u.test(word) || !/[^\p{Script=Latin}\p{M}]/u.test(word)) continue;
    for (let index = 0; index < word.length; index += 1) positions.add((match.index ?? 0) + index);
  }
  return positions;
}

function escapeCharacter(character: string, inMixedWord: boolean): string {
  if (character === '"' || character === '\\') return `\\${character}`;
  if (character === '\n') return '\\n';
  if (character === '\t') return '\\t';
  if (character === ' ') return character;
  if (!OPAQUE.test(character) && !(inMixedWord && isConfusable(character))) return character;
  const codePoint = character.codePointAt(0) ?? 0;
  return codePoint > 0xffff ? `\\u{${codePoint.toString(16).toUpperCase()}}` : `\\u${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;
}
