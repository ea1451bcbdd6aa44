/**
 * Building blocks for the prompt-text patterns. Words may be joined by any short run of
 * non-alphanumerics, or by nothing at all, because the squeezed reading of "i g n o r e
 * p r e v i o u s" is "ignoreprevious". Boundaries are Unicode-aware: JavaScript's `\b`
 * only knows ASCII, so it would never fire before a Cyrillic word.
 */

/** Between two words: up to five characters that are neither letters nor digits. */
export const J = '[^\\p{L}\\p{N}]{0,5}';
/** Start of a word. */
export const B = '(?<![\\p{L}\\p{N}])';
/** End of a word. */
export const E = '(?![\\p{L}\\p{N}])';

/** A case-insensitive Unicode pattern. */
export function rx(source: string): RegExp {
  return new RegExp(source, 'iu');
}

/** A case-sensitive Unicode pattern, for markers that are only suspicious in capitals. */
export function rxCased(source: string): RegExp {
  return new RegExp(source, 'u');
}

/** `words('ignore', 'previous')` → the words joined by J. */
export function words(...parts: readonly string[]): string {
  return parts.join(J);
}

/** Zero to `max` optional filler words (articles, determiners) out of `list`. */
export function fillers(list: string, max = 3): string {
  return `(?:(?:${list})${J}){0,${max}}`;
}
