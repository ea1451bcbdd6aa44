import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../support/infra';
import { runSuite } from './conformance.runner';

/**
 * The pre-release suite that has the 2026-07-28 scenarios (infra/conformance/suite-2026-version).
 * The session-revision suite (suite-version) stays on its own release; the two are judged apart.
 */
export const CONFORMANCE_2026_PACKAGE = readFileSync(path.join(REPO_ROOT, 'infra', 'conformance', 'suite-2026-version'), 'utf8').trim();
export const BASELINE_2026_FILE = path.join(REPO_ROOT, 'infra', 'conformance', 'baseline-2026.json');
export const REVISION = '2026-07-28';

export interface Check {
  id: string;
  status: string;
  errorMessage?: string;
}

export interface ScenarioChecks {
  scenario: string;
  checks: Check[];
}

/**
 * What a run of the 2026 scenarios must show. `scenarios`: no check fails (the suite's own
 * skips and warnings allowed). `checks`: the named checks of a partly passing scenario report
 * SUCCESS. `knownFailures`: why the rest fails today.
 */
export interface Baseline2026 {
  scenarios: string[];
  checks: Record<string, string[]>;
  knownFailures: Record<string, string>;
}

export interface Verdict2026 {
  /** `scenario/check: why`: a scenario of `scenarios` with a failed check, or a check of `checks` that did not pass. */
  regressions: string[];
  /** Listed in the baseline but not run: a renamed or retired scenario. */
  notRun: string[];
  /** Run, failing, and in no list: a new scenario nobody has looked at. */
  unexplained: string[];
  /** Listed as a known failure (or partial) and now fully passing: the baseline can be tightened. */
  nowPassing: string[];
}

const failed = (c: Check) => c.status === 'FAILURE';

export function readBaseline2026(file = BASELINE_2026_FILE): Baseline2026 {
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as Baseline2026;
  for (const [name, reason] of Object.entries(parsed.knownFailures)) {
    if (typeof reason !== 'string' || reason.trim().length < 10) throw new Error(`${file}: "${name}" needs a reason (a sentence, not a flag)`);
  }
  for (const name of Object.keys(parsed.checks)) {
    if (!(name in parsed.knownFailures)) throw new Error(`${file}: partly passing "${name}" needs a reason in knownFailures for its other checks`);
  }
  return parsed;
}

export function judge2026(results: ScenarioChecks[], baseline: Baseline2026): Verdict2026 {
  const byName = new Map(results.map((r) => [r.scenario, r.checks]));
  const regressions: string[] = [];
  for (const scenario of baseline.scenarios) {
    const bad = (byName.get(scenario) ?? []).filter(failed);
    if (bad.length) regressions.push(...bad.map((c) => `${scenario}/${c.id}: ${c.errorMessage ?? 'failed'}`));
  }
  for (const [scenario, ids] of Object.entries(baseline.checks)) {
    const checks = byName.get(scenario);
    if (!checks) continue;
    for (const id of ids) {
      // An id can be reported several times (one per probe); every report must be a success.
      const reports = checks.filter((c) => c.id === id);
      if (reports.length === 0) regressions.push(`${scenario}/${id}: not reported`);
      for (const c of reports.filter((r) => r.status !== 'SUCCESS')) regressions.push(`${scenario}/${id}: ${c.status} ${c.errorMessage ?? ''}`.trim());
    }
  }
  const listed = new Set([...baseline.scenarios, ...Object.keys(baseline.checks), ...Object.keys(baseline.knownFailures)]);
  return {
    regressions,
    notRun: [...listed].filter((name) => !byName.has(name)),
    unexplained: results.filter((r) => !listed.has(r.scenario) && r.checks.some(failed)).map((r) => r.scenario),
    nowPassing: results.filter((r) => r.scenario in baseline.knownFailures && !r.checks.some(failed)).map((r) => r.scenario),
  };
}

/** Reads `<dir>/server-<scenario>-<timestamp>/checks.json`, every check kept. */
export function readChecks(dir: string): ScenarioChecks[] {
  return readdirSync(dir).flatMap((entry): ScenarioChecks[] => {
    const match = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(entry);
    if (!match) return [];
    return [{ scenario: match[1], checks: JSON.parse(readFileSync(path.join(dir, entry, 'checks.json'), 'utf8')) as Check[] }];
  }).sort((a, b) => a.scenario.localeCompare(b.scenario));
}

/**
 * Runs exactly the scenarios the 2026-07-28 revision requires (`--requirements`), under Node 22,
 * against `url`; with `scenario`, that one alone, at the same revision and as forcefully as the
 * requirements run does. The suite's exit code is ignored: the verdict comes from the baseline.
 */
export async function runConformance2026(url: string, node22Binary: string, scenario?: string): Promise<{ results: ScenarioChecks[]; output: string }> {
  const select = scenario ? ['--scenario', scenario, '--spec-version', REVISION, '--force'] : ['--requirements', REVISION];
  const { outDir, output } = await runSuite(CONFORMANCE_2026_PACKAGE, ['server', '--url', url, ...select], node22Binary);
  const results = readChecks(outDir);
  if (results.length === 0) throw new Error(`the 2026 conformance suite produced no results; its output:\n${output.slice(-3000)}`);
  return { results, output };
}
