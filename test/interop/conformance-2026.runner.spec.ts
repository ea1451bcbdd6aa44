import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { judge2026, readBaseline2026, type Baseline2026, type Check, type ScenarioChecks } from './conformance-2026.runner';

const check = (id: string, status = 'SUCCESS'): Check => ({ id, status, ...(status === 'FAILURE' ? { errorMessage: 'broke' } : {}) });
const run = (scenario: string, ...checks: Check[]): ScenarioChecks => ({ scenario, checks });

const baseline: Baseline2026 = {
  scenarios: ['tools-list'],
  checks: { 'server-stateless': ['sep-2575-server-implements-discover', 'sep-2575-http-server-meta-invalid-400'] },
  knownFailures: { 'server-stateless': 'one check needs a capability the edge does not check', 'prompts-list': 'prompts are not served yet' },
};

describe('judging a 2026-07-28 conformance run against the baseline', () => {
  const good = [
    run('tools-list', check('tools-list'), check('wire-schema-valid', 'WARNING')),
    run('server-stateless', check('sep-2575-server-implements-discover'), check('sep-2575-http-server-meta-invalid-400'), check('sep-2575-http-server-meta-invalid-400'), check('sep-2575-missing-capability', 'FAILURE')),
    run('prompts-list', check('prompts-list', 'FAILURE')),
  ];

  it('accepts a run where everything listed passes and every failure has a reason', () => {
    expect(judge2026(good, baseline)).toEqual({ regressions: [], notRun: [], unexplained: [], nowPassing: [] });
  });

  it('reports a listed scenario with a failed check, and a listed check failing in any of its reports', () => {
    const bad = [
      run('tools-list', check('tools-list', 'FAILURE')),
      run('server-stateless', check('sep-2575-server-implements-discover'), check('sep-2575-http-server-meta-invalid-400'), check('sep-2575-http-server-meta-invalid-400', 'FAILURE')),
      good[2],
    ];
    expect(judge2026(bad, baseline).regressions).toEqual(['tools-list/tools-list: broke', 'server-stateless/sep-2575-http-server-meta-invalid-400: FAILURE broke']);
  });

  it('reports a listed check that was skipped or not reported at all', () => {
    const skipped = [good[0], run('server-stateless', check('sep-2575-server-implements-discover', 'SKIPPED')), good[2]];
    expect(judge2026(skipped, baseline).regressions).toEqual([
      'server-stateless/sep-2575-server-implements-discover: SKIPPED',
      'server-stateless/sep-2575-http-server-meta-invalid-400: not reported',
    ]);
  });

  it('reports a listed scenario that did not run, an unlisted failure, and a known failure that now passes', () => {
    const verdict = judge2026([good[1], run('prompts-list', check('prompts-list')), run('caching', check('x', 'FAILURE'))], baseline);
    expect(verdict).toEqual({ regressions: [], notRun: ['tools-list'], unexplained: ['caching'], nowPassing: ['prompts-list'] });
  });

  it('refuses a known failure without a reason, and a partly passing scenario without one', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'baseline-2026-'));
    const file = path.join(dir, 'baseline.json');
    writeFileSync(file, JSON.stringify({ scenarios: [], checks: {}, knownFailures: { caching: 'no' } }));
    expect(() => readBaseline2026(file)).toThrow('"caching" needs a reason');
    writeFileSync(file, JSON.stringify({ scenarios: [], checks: { caching: ['wire-schema-valid'] }, knownFailures: {} }));
    expect(() => readBaseline2026(file)).toThrow('partly passing "caching" needs a reason');
  });

  it('reads the checked-in baseline, where every scenario is listed once', () => {
    const checkedIn = readBaseline2026();
    const names = [...checkedIn.scenarios, ...Object.keys(checkedIn.knownFailures)];
    expect(new Set(names).size).toBe(names.length);
    expect(checkedIn.scenarios).toEqual(expect.arrayContaining(['tools-list', 'http-header-validation', 'dns-rebinding-protection']));
  });
});
