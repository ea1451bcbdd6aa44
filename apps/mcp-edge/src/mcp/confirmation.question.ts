import { inspectPromptText, type ToolSpec } from '@estate/contracts';

/** The most of the arguments' JSON a question shows: enough to recognise a call, not a wall to scroll past. */
export const MAX_SHOWN_ARGUMENTS = 500;

/**
 * What a person is asked before a destructive call runs: the tool, what it does, and the
 * arguments it would run with, as compact JSON cut at MAX_SHOWN_ARGUMENTS characters with an
 * ellipsis. The same question goes out as an elicitation and as a 2026-07-28 input request.
 */
export function confirmationQuestion(spec: Pick<ToolSpec, 'name' | 'title' | 'description'>, args: Record<string, unknown>): string {
  return `Confirm: ${spec.title ?? spec.name} (${spec.name}) is destructive. ${spec.description}\nArguments: ${shownArguments(args)}`;
}

/**
 * The arguments are the agent's words, and a model can be steered into writing them: a string or
 * key that breaks the prompt-text rules (hidden or direction-changing characters that make text
 * read differently than it is, instructions aimed at the reader) is shown as a placeholder naming
 * the rule, never as itself, so the person is not shown one call and asked to approve another.
 */
function shownArguments(args: Record<string, unknown>): string {
  const json = JSON.stringify(args, (_key, value: unknown) => {
    if (typeof value === 'string') return shownText(value) ?? value;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
    // Entries, not assignment: a key "__proto__" stays a key.
    const shown = new Map<string, unknown>();
    for (const [key, inner] of Object.entries(value)) {
      const withheld = shownText(key);
      shown.set(withheld === undefined ? key : uniqueKey(shown, withheld), inner);
    }
    return Object.fromEntries(shown);
  });
  if (json.length <= MAX_SHOWN_ARGUMENTS) return json;
  const cut = json.slice(0, MAX_SHOWN_ARGUMENTS - 1);
  // Never half a surrogate pair.
  return `${/[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut}…`;
}

/** undefined: the text may be shown. Only what can be shown is judged (a long text is cut anyway). */
function shownText(text: string): string | undefined {
  const issues = inspectPromptText(text.slice(0, MAX_SHOWN_ARGUMENTS), '$');
  if (issues.length === 0) return undefined;
  return `[withheld by the estate: ${[...new Set(issues.map((issue) => issue.code))].join(', ')}]`;
}

function uniqueKey(taken: Map<string, unknown>, key: string): string {
  let candidate = key;
  for (let n = 2; taken.has(candidate); n += 1) candidate = `${key} ${n}`;
  return candidate;
}
