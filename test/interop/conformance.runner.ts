import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../support/infra';

/** The suite CI runs (infra/conformance/suite-version); bump it deliberately and re-read its scenario list when you do. */
export const CONFORMANCE_PACKAGE = readFileSync(path.join(REPO_ROOT, 'infra', 'conformance', 'suite-version'), 'utf8').trim();
export const EXPECTED_FAILURES_FILE = path.join(REPO_ROOT, 'infra', 'conformance', 'expected-failures.json');

export type Outcome = 'pass' | 'fail';

export interface ScenarioResult {
  scenario: string;
  outcome: Outcome;
  /** The failed checks' messages, for the report. */
  failures: string[];
}

export interface Verdict {
  /** Failed and not listed: a regression (or a new scenario nobody looked at). */
  unexpectedFailures: ScenarioResult[];
  /** Listed but passed: the file is stale and must lose the entry. */
  nowPassing: string[];
  /** Listed but not run at all: a renamed or retired scenario. */
  notRun: string[];
}

/** Scenario name → why a gateway cannot (yet) pass it. */
export function readExpectedFailures(file = EXPECTED_FAILURES_FILE): Record<string, string> {
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as { server?: Record<string, unknown> };
  const server = parsed.server ?? {};
  for (const [name, reason] of Object.entries(server)) {
    if (typeof reason !== 'string' || reason.trim().length < 10) throw new Error(`${file}: "${name}" needs a reason (a sentence, not a flag)`);
  }
  return server as Record<string, string>;
}

export function judge(results: ScenarioResult[], expected: Record<string, string>): Verdict {
  const run = new Set(results.map((r) => r.scenario));
  return {
    unexpectedFailures: results.filter((r) => r.outcome === 'fail' && !(r.scenario in expected)),
    nowPassing: results.filter((r) => r.outcome === 'pass' && r.scenario in expected).map((r) => r.scenario),
    notRun: Object.keys(expected).filter((name) => !run.has(name)),
  };
}

interface Check {
  id: string;
  status: string;
  errorMessage?: string;
}

/** Reads `<dir>/server-<scenario>-<timestamp>/checks.json`; a scenario fails when any check is FAILURE. */
export function readResults(dir: string): ScenarioResult[] {
  return readdirSync(dir).flatMap((entry): ScenarioResult[] => {
    const match = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(entry);
    if (!match) return [];
    const checks = JSON.parse(readFileSync(path.join(dir, entry, 'checks.json'), 'utf8')) as Check[];
    const failed = checks.filter((c) => c.status === 'FAILURE');
    return [{ scenario: match[1], outcome: failed.length === 0 ? 'pass' : 'fail', failures: failed.map((c) => `${c.id}: ${c.errorMessage ?? 'failed'}`) }];
  }).sort((a, b) => a.scenario.localeCompare(b.scenario));
}

/**
 * Runs one pinned conformance package (`npx` resolves it into npm's cache) under Node 22 with
 * `args`, in a fresh folder that receives its results; returns the folder and what it printed.
 * The suite's own exit code is not used: each caller judges the results against its own file.
 */
export async function runSuite(pkg: string, args: string[], node22Binary: string): Promise<{ outDir: string; output: string }> {
  const outDir = mkdtempSync(path.join(os.tmpdir(), 'estate-conformance-'));
  const env = { ...process.env, PATH: `${path.dirname(node22Binary)}${path.delimiter}${process.env.PATH ?? ''}`, npm_config_update_notifier: 'false' };
  const output = await new Promise<string>((resolve, reject) => {
    const child = spawn('npx', ['--yes', pkg, ...args, '-o', outDir], { cwd: outDir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    child.stdout.on('data', (c: Buffer) => (text += c.toString()));
    child.stderr.on('data', (c: Buffer) => (text += c.toString()));
    child.on('error', reject);
    child.on('close', () => resolve(text));
  });
  return { outDir, output };
}

/** Runs every active server scenario of the session-era suite against `url` and returns the per-scenario outcomes. */
export async function runConformance(url: string, node22Binary: string): Promise<{ results: ScenarioResult[]; output: string }> {
  // CONFORMANCE_SUITE=all adds the suite's pending scenarios (for a look ahead; CI runs "active").
  const { outDir, output } = await runSuite(CONFORMANCE_PACKAGE, ['server', '--url', url, '--suite', process.env.CONFORMANCE_SUITE ?? 'active'], node22Binary);
  const results = readResults(outDir);
  if (results.length === 0) throw new Error(`the conformance suite produced no results; its output:\n${output.slice(-3000)}`);
  return { results, output };
}
