/**
 * The lines `estate check` prints under the registry's answer: which ESTATE_COMPAT policy decided,
 * what the strict policy would require, and each change with both verdicts. Reads both the
 * 200 answer (`compat`, `changes`) and a 422 refusal (`details.compat`, `details.changes`).
 */
export function checkSummary(body: unknown): string | undefined {
  const answer = asRecord(body);
  const details = asRecord(answer?.details);
  const compat = asRecord(answer?.compat) ?? asRecord(details?.compat);
  if (!compat) return undefined;
  const changes = (Array.isArray(answer?.changes) ? answer.changes : Array.isArray(details?.changes) ? details.changes : []).map(asRecord);
  const strict = String(compat.strictBump ?? compat.strictRequired ?? '?');
  const lines = [`policy: ${String(compat.policy)} (ESTATE_COMPAT); under strict this needs: ${strict}`];
  for (const change of changes) {
    if (!change) continue;
    const verdict = asRecord(change.strict);
    const parts = [`  ${String(change.bump ?? (change.breaking ? 'major' : '?'))}`, String(change.path), String(change.kind), `strict: ${String(verdict?.bump ?? '?')}`];
    if (change.narrows === true) parts.push(`narrows: the new contract refuses ${JSON.stringify(change.witness)}`);
    else if (change.kind === 'property-removed' && change.witness !== undefined) parts.push(`still accepted and now ignored: ${JSON.stringify(change.witness)}`);
    lines.push(parts.join('  '));
  }
  return lines.join('\n');
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}
