import { logLevelAdmits } from './log-level.policy';

describe('logLevelAdmits', () => {
  it('sends nothing to a request that asked for no log level', () => {
    expect(logLevelAdmits(undefined, 'emergency')).toBe(false);
  });

  it.each([
    ['warning', 'error', true],
    ['warning', 'warning', true],
    ['warning', 'notice', false],
    ['debug', 'debug', true],
    ['emergency', 'alert', false],
  ] as const)('at %s, a %s message goes out: %p', (requested, level, sent) => {
    expect(logLevelAdmits(requested, level)).toBe(sent);
  });
});
