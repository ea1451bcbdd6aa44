import { inspectPromptText, type ToolSpec } from '@estate/contracts';

/** The most characters of arguments a question shows: enough to recognise a call, not a wall to scroll past. */
export const MAX_SHOWN_ARGUMENTS = 2000;

/** The fewest characters of a text a question shows before it cuts it (with `…`); less would not say what the text is. */
export const MIN_SHOWN_TEXT = 16;

/** The question, or how long the arguments are at their shortest when even that does not fit. */
export type ConfirmationQuestion = { ok: true; message: string } | { ok: false; shortestLength: number };

/**
 * What a person is asked before a destructive call runs: the tool, what it does, and the
 * arguments it would run with, as compact JSON. The same question goes out as an elicitation
 * and as a 2026-07-28 input request.
 *
 * Every key and every array item is shown: only texts are cut, the longest first, to one common
 * length, so the whole fits in MAX_SHOWN_ARGUMENTS. Cutting the JSON as a whole would let an agent
 * pad an early value and push the argument that decides what the call does out of sight.
 * Arguments that do not fit even with every text cut to MIN_SHOWN_TEXT are not asked about at all.
 */
export function confirmationQuestion(spec: Pick<ToolSpec, 'name' | 'title' | 'description'>, args: Record<string, unknown>): ConfirmationQuestion {
  const shown = shownArguments(args);
  if (!shown.ok) return shown;
  return { ok: true, message: `Confirm: ${spec.title ?? spec.name} (${spec.name}) is destructive. ${spec.description}\nArguments: ${shown.text}` };
}

/** A text the estate shows in place of the agent's: never cut. */
class Withheld {
  constructor(readonly text: string) {}
}

/** The arguments as they will be shown: judged once, then written at any cut length. */
type Shown = string | Withheld | number | boolean | null | Shown[] | Map<string, Shown>;

function shownArguments(args: Record<string, unknown>): { ok: true; text: string } | { ok: false; shortestLength: number } {
  const shown = judged(args);
  const whole = written(shown, Infinity);
  if (whole.length <= MAX_SHOWN_ARGUMENTS) return { ok: true, text: whole };
  const shortest = written(shown, MIN_SHOWN_TEXT);
  if (shortest.length > MAX_SHOWN_ARGUMENTS) return { ok: false, shortestLength: shortest.length };
  // The longest cut that fits: the written length only grows with the cut length.
  let [fits, tooLong] = [MIN_SHOWN_TEXT, MAX_SHOWN_ARGUMENTS];
  while (tooLong - fits > 1) {
    const middle = Math.floor((fits + tooLong) / 2);
    if (written(shown, middle).length <= MAX_SHOWN_ARGUMENTS) fits = middle;
    else tooLong = middle;
  }
  return { ok: true, text: written(shown, fits) };
}

/**
 * The arguments are the agent's words, and a model can be steered into writing them: a string or
 * key that breaks the prompt-text rules (hidden or direction-changing characters that make text
 * read differently than it is, instructions aimed at the reader) is shown as a placeholder naming
 * the rule, never as itself, so the person is not shown one call and asked to approve another.
 */
function judged(value: unknown): Shown {
  if (typeof value === 'string') return withheld(value) ?? value;
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return value;
  if (Array.isArray(value)) return value.map(judged);
  if (typeof value !== 'object') return null;
  // A Map, not an object: a key "__proto__" stays a key.
  const shown = new Map<string, Shown>();
  for (const [key, inner] of Object.entries(value)) {
    const placeholder = withheld(key);
    shown.set(placeholder === undefined ? key : uniqueKey(shown, placeholder.text), judged(inner));
  }
  return shown;
}

/** Compact JSON with every text longer than `cut` characters cut to `cut` (the last one `…`). */
function written(value: Shown, cut: number): string {
  if (typeof value === 'string') return JSON.stringify(value.length > cut ? cutText(value, cut) : value);
  if (value instanceof Withheld) return JSON.stringify(value.text);
  if (Array.isArray(value)) return `[${value.map((item) => written(item, cut)).join(',')}]`;
  if (value instanceof Map) return `{${[...value].map(([key, inner]) => `${JSON.stringify(key)}:${written(inner, cut)}`).join(',')}}`;
  return JSON.stringify(value);
}

function cutText(text: string, cut: number): string {
  const kept = text.slice(0, cut - 1);
  // Never half a surrogate pair.
  return `${/[\uD800-\uDBFF]$/.test(kept) ? kept.slice(0, -1) : kept}…`;
}

/** undefined: the text may be shown. Only what can be shown is judged (no text is shown longer than the whole). */
function withheld(text: string): Withheld | undefined {
  const issues = inspectPromptText(text.slice(0, MAX_SHOWN_ARGUMENTS), '$');
  if (issues.length === 0) return undefined;
  return new Withheld(`[withheld by the estate: ${[...new Set(issues.map((issue) => issue.code))].join(', ')}]`);
}

function uniqueKey(taken: Map<string, Shown>, key: string): string {
  let candidate = key;
  for (let n = 2; taken.has(candidate); n += 1) candidate = `${key} ${n}`;
  return candidate;
}
