import {
  VersionCandidate,
  bumpBetween,
  bumpRank,
  isValidConstraint,
  parseVersion,
  resolveVersion,
  satisfies,
} from './semver.policy';

describe('parseVersion', () => {
  it.each(['1.0.0', '0.0.0', '10.20.30', '1.0.0-alpha', '1.0.0-alpha.1', '1.0.0-0.3.7', '1.0.0+20130313144700', '1.0.0-beta+exp.sha.5114f85'])(
    'accepts %s',
    (text) => {
      expect(parseVersion(text)).toEqual({ ok: true, value: text });
    },
  );

  it.each(['v1.0.0', '1.0', '1', '01.0.0', '1.01.0', '1.0.01', ' 1.0.0', '1.0.0 ', '=1.0.0', '1.0.0-01', '1.0.0-', '1.0.0+', '', '1.0.0.0', 'latest'])(
    'refuses %j',
    (text) => {
      const result = parseVersion(text);
      expect(result.ok).toBe(false);
      expect(result.ok ? undefined : result.error.code).toBe('invalid_version');
    },
  );

  it('refuses non-strings', () => {
    expect(parseVersion(100).ok).toBe(false);
  });
});

describe('constraints', () => {
  it.each(['^1.2.0', '~1.2.0', '1.2.0', '=1.2.0', '>=1.2.0 <2.0.0', '^1.0.0 || ^2.0.0'])('accepts %s', (c) => {
    expect(isValidConstraint(c)).toBe(true);
  });

  it.each(['', '  ', '^v1.2.0', '^1.2', '1.x', '*', 'latest', '>= 1.2.0', '1.0.0 - 2.0.0', '^1.0.0 ||'])('refuses %j', (c) => {
    expect(isValidConstraint(c)).toBe(false);
  });

  it('caret allows minor and patch, not major', () => {
    expect(satisfies('1.2.0', '^1.2.0')).toBe(true);
    expect(satisfies('1.9.3', '^1.2.0')).toBe(true);
    expect(satisfies('2.0.0', '^1.2.0')).toBe(false);
    expect(satisfies('1.1.9', '^1.2.0')).toBe(false);
  });

  it('caret on 0.x pins the minor', () => {
    expect(satisfies('0.2.5', '^0.2.0')).toBe(true);
    expect(satisfies('0.3.0', '^0.2.0')).toBe(false);
  });

  it('tilde allows patch only', () => {
    expect(satisfies('1.2.9', '~1.2.0')).toBe(true);
    expect(satisfies('1.3.0', '~1.2.0')).toBe(false);
  });

  it('exact matches one version', () => {
    expect(satisfies('1.2.0', '1.2.0')).toBe(true);
    expect(satisfies('1.2.1', '1.2.0')).toBe(false);
  });

  it('ranges combine comparators', () => {
    expect(satisfies('1.5.0', '>=1.2.0 <2.0.0')).toBe(true);
    expect(satisfies('2.0.0', '>=1.2.0 <2.0.0')).toBe(false);
    expect(satisfies('1.1.0', '>=1.2.0 <2.0.0')).toBe(false);
  });

  it('never matches invalid input', () => {
    expect(satisfies('v1.2.0', '^1.0.0')).toBe(false);
    expect(satisfies('1.2.0', '1.x')).toBe(false);
  });
});

describe('bumpBetween', () => {
  it.each([
    ['1.2.3', '2.0.0', 'major'],
    ['1.2.3', '1.3.0', 'minor'],
    ['1.2.3', '1.2.4', 'patch'],
    ['1.2.3', '1.2.3', 'none'],
    ['1.2.3', '3.4.5', 'major'],
    ['1.0.0-beta.1', '1.0.0-beta.2', 'none'],
    ['1.0.0-rc.1', '1.0.0', 'none'],
    ['bad', '1.0.0', 'none'],
  ] as const)('%s -> %s is %s', (older, newer, bump) => {
    expect(bumpBetween(older, newer)).toBe(bump);
  });

  it('ranks bumps none < patch < minor < major', () => {
    expect([bumpRank('none'), bumpRank('patch'), bumpRank('minor'), bumpRank('major')]).toEqual([0, 1, 2, 3]);
  });
});

describe('resolveVersion', () => {
  const versions: VersionCandidate[] = [
    { version: '1.0.0', status: 'retired' },
    { version: '1.1.0', status: 'deprecated' },
    { version: '1.2.0', status: 'active' },
    { version: '1.10.0', status: 'deprecated' },
    { version: '2.0.0', status: 'active' },
    { version: '3.0.0-beta.1', status: 'active' },
  ];

  it('gives the newest active release without a constraint', () => {
    expect(resolveVersion(versions)).toBe('2.0.0');
  });

  it('gives the newest active version in a caret range, skipping deprecated ones', () => {
    expect(resolveVersion(versions, '^1.0.0')).toBe('1.2.0');
  });

  it('gives a deprecated version to an exact pin', () => {
    expect(resolveVersion(versions, '1.1.0')).toBe('1.1.0');
    expect(resolveVersion(versions, '=1.10.0')).toBe('1.10.0');
  });

  it('never gives a retired version, even to an exact pin', () => {
    expect(resolveVersion(versions, '1.0.0')).toBeUndefined();
    expect(resolveVersion(versions, '~1.0.0')).toBeUndefined();
  });

  it('does not give a deprecated version to a range', () => {
    expect(resolveVersion(versions, '~1.1.0')).toBeUndefined();
  });

  it('gives undefined when nothing matches', () => {
    expect(resolveVersion(versions, '^4.0.0')).toBeUndefined();
    expect(resolveVersion([])).toBeUndefined();
  });

  it('falls back to a pre-release only when no release is active', () => {
    expect(resolveVersion([{ version: '0.1.0-alpha', status: 'active' }])).toBe('0.1.0-alpha');
  });

  it('ignores candidates whose version is not strict', () => {
    expect(resolveVersion([{ version: 'v9.0.0', status: 'active' }, { version: '1.0.0', status: 'active' }])).toBe('1.0.0');
  });
});
