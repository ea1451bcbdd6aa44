/** Words PromQL reserves; anything else standing alone (not called, not a label) is a metric name. */
const KEYWORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'bool', 'offset', 'and', 'or', 'unless', 'inf', 'nan']);

/**
 * The metric names a PromQL expression selects: strings, label matchers, ranges and grouping
 * clauses are taken out first, then every identifier that is not a function call or a keyword.
 * Enough for dashboard expressions; not a PromQL parser.
 */
export function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, ' ')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names = new Set<string>();
  for (const match of bare.matchAll(/(?<![\w:.$])([a-zA-Z_:][\w:]*)(?![\w:])(?!\s*\()/g)) {
    if (!KEYWORDS.has(match[1].toLowerCase())) names.add(match[1]);
  }
  return [...names];
}

/** Every sample name in a Prometheus text exposition (`_bucket`, `_sum`, `_count` included). */
export function exposedNames(exposition: string): Set<string> {
  return new Set(exposition.split('\n').filter((line) => line && !line.startsWith('#')).map((line) => /^[a-zA-Z_:][\w:]*/.exec(line)![0]));
}

/** Label values of every sample, with the sample's name. */
export function labelValues(exposition: string): Array<{ name: string; label: string; value: string }> {
  const found: Array<{ name: string; label: string; value: string }> = [];
  for (const line of exposition.split('\n')) {
    const sample = /^([a-zA-Z_:][\w:]*)\{(.*)\}\s/.exec(line);
    if (!sample) continue;
    for (const pair of sample[2].matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) found.push({ name: sample[1], label: pair[1], value: pair[2] });
  }
  return found;
}

export interface DashboardPanel {
  id: number;
  type: string;
  title: string;
  targets?: Array<{ expr: string; refId: string }>;
}

export function dashboardExpressions(dashboard: { panels: DashboardPanel[] }): Array<{ panel: string; expr: string }> {
  return dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => ({ panel: panel.title, expr: target.expr })));
}
