import { RE2JS } from 're2js';

/**
 * Every `pattern` and `patternProperties` key Estate evaluates runs in time linear in the input.
 * A published schema is tested against text the caller (or an upstream) chooses, so a pattern
 * such as `^(a+)+$` on V8's backtracking engine would let one call freeze the whole server.
 *
 * Patterns go to RE2 (re2js, an automaton: no backtracking) unless they are "flat": every
 * quantifier sits on a single character or class, the product of the bounded quantifiers'
 * ranges and of alternation widths stays small, and at most one quantifier is unbounded — only
 * in a pattern anchored with a leading `^` and no top-level alternation, so there is one start
 * position. V8's backtracking then does at most (input length × that product) steps: linear,
 * and V8's own engine is 15–30× faster per test on short strings. Every pattern must also compile in RE2 — a backreference or a
 * lookaround cannot, and is refused at publish — so the choice of engine never changes which
 * schemas are accepted.
 */

/** Backtracking steps per input position a flat pattern may need before it goes to RE2 (64 × a 256 KiB argument stays in tens of ms). */
const FLAT_BUDGET = 64;

/** What ajv needs of a regular expression: `test`, and a `toString` it uses as a cache key. */
export interface LinearRegExp {
  test(text: string): boolean;
  toString(): string;
}

/** Compiles a JSON Schema (ECMA-262) pattern to a matcher that runs in linear time; throws when RE2 cannot express it. */
export function linearRegExp(pattern: string): LinearRegExp {
  const re2 = RE2JS.compile(RE2JS.translateRegExp(pattern));
  const native = isFlat(pattern) ? new RegExp(pattern, 'u') : undefined;
  const key = `/${pattern}/u`;
  if (native) return { test: (text) => native.test(text), toString: () => key };
  return { test: (text) => re2.test(text), toString: () => key };
}

const compiled = new Map<string, LinearRegExp>();
const CACHE_LIMIT = 1024;

/** linearRegExp, remembered: for code that meets the same patternProperties key on every call. */
export function cachedLinearRegExp(pattern: string): LinearRegExp {
  let hit = compiled.get(pattern);
  if (!hit) {
    hit = linearRegExp(pattern);
    if (compiled.size >= CACHE_LIMIT) compiled.clear();
    compiled.set(pattern, hit);
  }
  return hit;
}

/** ajv's `code.regExp` option: `new`-able or callable with (pattern, flags); flags are always "u" or "". */
export const linearRegExpEngine = Object.assign((pattern: string) => linearRegExp(pattern), { code: 'linearRegExp' });

/** `undefined` when the pattern is usable; otherwise why RE2 refuses it (a backreference, a lookaround, bad syntax). */
export function linearPatternProblem(pattern: string): string | undefined {
  try {
    RE2JS.compile(RE2JS.translateRegExp(pattern));
    new RegExp(pattern, 'u');
    return undefined;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return `the pattern ${JSON.stringify(pattern)} cannot run on a linear-time engine (${reason}); backreferences and lookarounds are not supported`;
  }
}

/** True when V8's backtracking on this pattern is linear in the input (see the file comment). */
export function isFlat(pattern: string): boolean {
  let work = 1;
  let unbounded = 0;
  const branches: number[] = [1];
  for (let i = 0; i < pattern.length; i += 1) {
    const c = pattern[i];
    if (c === '\\') {
      if (/[1-9k]/.test(pattern[i + 1] ?? '')) return false;
      i += 1;
    } else if (c === '[') {
      i = classEnd(pattern, i);
      if (i < 0) return false;
    } else if (c === '(') {
      i = groupBodyStart(pattern, i);
      if (i < 0) return false;
      branches.push(1);
      continue;
    } else if (c === ')') {
      work *= branches.pop() ?? 1;
      if (branches.length === 0) return false;
      continue; // a quantifier right after a group is caught below: quantified groups are not flat
    } else if (c === '|') {
      branches[branches.length - 1] += 1;
      continue;
    } else if ('*+?{'.includes(c)) {
      return false;
    }
    const range = quantifierAt(pattern, i + 1);
    if (!range) continue;
    if (range.max === Infinity) unbounded += 1;
    else work *= range.max - range.min + 1;
    if (unbounded > 1) return false;
    if (work > FLAT_BUDGET) return false;
    i += range.length;
  }
  if (unbounded > 0 && !(pattern.startsWith('^') && branches[0] === 1)) return false;
  return branches.length === 1 && work * branches[0] <= FLAT_BUDGET;
}

/** The index of the last character of a group's opening (`(`, `(?:`, `(?<name>`); -1 for a lookaround. */
function groupBodyStart(pattern: string, i: number): number {
  if (pattern[i + 1] !== '?') return i;
  if (pattern[i + 2] === ':') return i + 2;
  if (pattern[i + 2] === '<' && pattern[i + 3] !== '=' && pattern[i + 3] !== '!') {
    const end = pattern.indexOf('>', i);
    return end;
  }
  return -1;
}

function classEnd(pattern: string, start: number): number {
  for (let i = start + 1; i < pattern.length; i += 1) {
    if (pattern[i] === '\\') i += 1;
    else if (pattern[i] === ']') return i;
  }
  return -1;
}

interface Quantifier {
  min: number;
  max: number;
  /** Characters the quantifier (with a lazy `?`) takes. */
  length: number;
}

function quantifierAt(pattern: string, i: number): Quantifier | undefined {
  const c = pattern[i];
  let q: Quantifier | undefined;
  if (c === '?') q = { min: 0, max: 1, length: 1 };
  else if (c === '*') q = { min: 0, max: Infinity, length: 1 };
  else if (c === '+') q = { min: 1, max: Infinity, length: 1 };
  else if (c === '{') {
    const m = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i));
    if (!m) return undefined;
    const min = Number(m[1]);
    const max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
    q = { min, max, length: m[0].length };
  }
  if (q && pattern[i + q.length] === '?') q.length += 1;
  return q;
}
