import { forgetOldest } from '@estate/protocol';
import type { ContractIssue } from './contract.types';

/** Longest text whose verdict is kept: titles, keys, schema words and descriptions fit; a 1 MB blob is judged each time. */
export const CACHED_TEXT_MAX_CHARS = 8_192;
/** All kept texts together, in characters (about 2 MB): the bound holds whatever mix of lengths arrives. */
export const CACHED_TEXTS_MAX_CHARS = 1_000_000;

/**
 * Verdicts of the prompt-text rules by (context, text), least recently used forgotten first. A
 * publish lints every text of its spec, and successive versions of a tool repeat almost all of
 * them (its title, every schema key and word); profiled, linting those again was the largest
 * cost of a publish's own. The rules are pure, so a kept verdict is the verdict. Kept without
 * their path (the same text is judged alike wherever it sits), handed out as fresh copies.
 */
interface Kept {
  issues: readonly Omit<ContractIssue, 'path'>[];
  /** When it was last put at the newest end, counted in insertions. */
  stamp: number;
}

export class PromptTextVerdicts {
  private readonly entries = new Map<string, Kept>();
  private chars = 0;
  private insertions = 0;

  constructor(private readonly maxChars = CACHED_TEXTS_MAX_CHARS, private readonly maxTextChars = CACHED_TEXT_MAX_CHARS) {}

  /** The verdict at `path`, judged by `judge` unless kept; `context` must name everything besides the text that changes it. */
  verdict(text: string, context: string, path: string, judge: () => ContractIssue[]): ContractIssue[] {
    if (text.length > this.maxTextChars) return judge();
    // The context comes first and is JSON (which escapes U+0000), so the first U+0000 ends it: no two pairs share a key.
    const key = `${context}\u0000${text}`;
    let kept = this.entries.get(key);
    if (kept === undefined) {
      kept = { issues: judge().map(({ path: _path, ...issue }) => issue), stamp: 0 };
      this.keep(key, kept);
    } else if (this.insertions - kept.stamp >= this.entries.size / 2) {
      this.touch(key, kept);
    }
    return kept.issues.map((issue) => ({ path, ...issue }));
  }

  get size(): number {
    return this.entries.size;
  }

  /**
   * Re-inserted: a Map iterates in insertion order, so its first key is the least recently used.
   * Only once it has drifted into the older half, where forgetting could reach it: V8 keeps a
   * deleted entry in its bucket's chain until the table is rebuilt, so deleting and re-adding the
   * same key on every hit ("type", "string" in every property) made each lookup walk all its
   * earlier copies. A check of a 40,000-property schema spent seconds here (profiled).
   */
  private touch(key: string, kept: Kept): void {
    kept.stamp = ++this.insertions;
    this.entries.delete(key);
    this.entries.set(key, kept);
  }

  private keep(key: string, kept: Kept): void {
    kept.stamp = ++this.insertions;
    this.entries.set(key, kept);
    this.chars += key.length;
    if (this.chars <= this.maxChars) return;
    // Down to nine tenths in one pass: dropping the oldest text per insert walked the holes that
    // earlier deletions left in the map, over and over (see keepWithin).
    const target = this.maxChars - Math.floor(this.maxChars / 10);
    let excess = 0;
    let count = 0;
    for (const oldest of this.entries.keys()) {
      if (this.chars - excess <= target) break;
      excess += oldest.length;
      count += 1;
    }
    for (const oldest of forgetOldest(this.entries, count)) this.chars -= oldest.length;
  }
}
