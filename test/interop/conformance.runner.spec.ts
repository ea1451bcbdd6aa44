import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { judge, readExpectedFailures, type ScenarioResult } from './conformance.runner';

const result = (scenario: string, outcome: 'pass' | 'fail'): ScenarioResult => ({ scenario, outcome, failures: outcome === 'fail' ? ['x: failed'] : [] });

describe('judging a conformance run against the expected failures', () => {
  it('accepts passes and listed failures', () => {
    const verdict = judge([result('ping', 'pass'), result('resources-subscribe', 'fail')], { 'resources-subscribe': 'not offered by the edge' });
    expect(verdict).toEqual({ unexpectedFailures: [], nowPassing: [], notRun: [] });
  });

  it('reports a failure nobody listed, a listed scenario that now passes, and a listed one that no longer runs', () => {
    const verdict = judge([result('ping', 'fail'), result('tools-list', 'pass')], { 'tools-list': 'was broken once', 'renamed-scenario': 'was broken once too' });
    expect(verdict).toEqual({ unexpectedFailures: [result('ping', 'fail')], nowPassing: ['tools-list'], notRun: ['renamed-scenario'] });
  });

  it('refuses an expected failure without a reason', () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'xfail-')), 'expected.json');
    writeFileSync(file, JSON.stringify({ server: { ping: '' } }));
    expect(() => readExpectedFailures(file)).toThrow('"ping" needs a reason');
  });

  it('reads the checked-in file, where every entry has a reason', () => {
    expect(Object.values(readExpectedFailures()).every((reason) => reason.length >= 10)).toBe(true);
  });
});
