import {
  VersionCandidate,
  bumpBetween,
  bumpRank,
  isStableVersion,
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
    // A pre-release target counts as the release it leads to: premajor is major, preminor minor, prepatch patch.
    ['1.0.0', '2.0.0-rc.1', 'major'],
    ['1.0.0', '2.0.0-0', 'major'],
    ['1.4.2', '1.5.0-beta.3', 'minor'],
    ['1.4.2', '1.4.3-rc.1', 'patch'],
    ['1.0.0+build.7', '2.0.0-rc.1+build.8', 'major'],
    ['bad', '1.0.0', 'none'],
  ] as const)('%s -> %s is %s', (older, newer, bump) => {
    expect(bumpBetween(older, newer)).toBe(bump);
  });

  it('ranks bumps none < patch < minor < major', () => {
    expect([bumpRank('none'), bumpRank('patch'), bumpRank('minor'), bumpRank('major')]).toEqual([0, 1, 2, 3]);
  });
});

describe('isStableVersion', () => {
  it.each([['1.0.0', true], ['1.0.0+build.1', true], ['1.0.0-rc.1', false], ['1.0.0-0', false], ['v1.0.0', false], [1, false]] as const)(
    '%j is %s',
    (version, stable) => {
      expect(isStableVersion(version)).toBe(stable);
    },
  );
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

  it('never gives an unpinned caller a pre-release, even when it is all there is', () => {
    expect(resolveVersion([{ version: '0.1.0-alpha', status: 'active' }])).toBeUndefined();
    // 2.0.0 retired, 1.0.0 deprecated: the newer pre-release is not a fallback.
    expect(resolveVersion([
      { version: '1.0.0', status: 'deprecated' }, { version: '2.0.0', status: 'retired' }, { version: '2.1.0-rc.1', status: 'active' },
    ])).toBeUndefined();
    expect(resolveVersion([
      { version: '1.0.0', status: 'active' }, { version: '1.1.0', status: 'deprecated' }, { version: '1.2.0-rc.1', status: 'active' },
    ])).toBe('1.0.0');
  });

  it('gives a pre-release to an exact pin and to a range that names a pre-release of its version', () => {
    const withRc: VersionCandidate[] = [
      { version: '1.0.0', status: 'active' }, { version: '2.0.0-rc.1', status: 'active' }, { version: '2.0.0-rc.2', status: 'active' },
    ];
    expect(resolveVersion(withRc, '2.0.0-rc.1')).toBe('2.0.0-rc.1');
    expect(resolveVersion(withRc, '^2.0.0-rc.1')).toBe('2.0.0-rc.2');
    // Ranges over releases do not admit pre-releases (node-semver's rule).
    expect(resolveVersion(withRc, '>=1.0.0')).toBe('1.0.0');
    expect(resolveVersion(withRc, '^2.0.0')).toBeUndefined();
    // Once 2.0.0 is out, the pre-release range moves to it.
    expect(resolveVersion([...withRc, { version: '2.0.0', status: 'active' }], '^2.0.0-rc.1')).toBe('2.0.0');
  });

  it('ignores candidates whose version is not strict', () => {
    expect(resolveVersion([{ version: 'v9.0.0', status: 'active' }, { version: '1.0.0', status: 'active' }])).toBe('1.0.0');
  });
});
