/** Lines under `estate as-of`'s JSON: one per tool, what an unpinned call got and what a pin could reach. */
export function asOfSummary(answer: unknown): string | undefined {
  const { principal, at, events, tools } = (answer ?? {}) as {
    principal?: string; at?: string; events?: number;
    tools?: Array<{ name: string; version: string | null; callable: Array<{ version: string; status: string }> }>;
  };
  if (!Array.isArray(tools)) return undefined;
  const lines = tools.map((t) => `  ${t.name}  ${t.version ?? '(pin only)'}  callable: ${t.callable.map((c) => `${c.version} ${c.status}`).join(', ')}`);
  const folded = events === undefined ? '' : ` (${events} events folded)`;
  return [`${principal} at ${at}${folded}: ${tools.length} tool${tools.length === 1 ? '' : 's'}`, ...lines].join('\n');
}

/** Lines under `estate history`'s JSON: when, what, which version, who. */
export function historySummary(answer: unknown): string | undefined {
  const { changes } = (answer ?? {}) as { changes?: Array<{ at: string; change: string; version: string; actor?: string; summary: string }> };
  if (!Array.isArray(changes)) return undefined;
  return changes.map((c) => `  ${c.at}  ${c.change.padEnd(14)}  ${c.version}  ${c.actor ?? '-'}  ${c.summary}`).join('\n');
}
