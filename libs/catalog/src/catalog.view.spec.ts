import type { Principal, ToolSpec } from '@estate/contracts';
import type { CatalogEntry, CatalogVersion } from '@estate/events';
import { listVisible, resolveForPrincipal, withSunsetsApplied } from './catalog.view';

const spec = (version: string, requiredScopes: string[] = ['bank:read']): ToolSpec => ({
  name: 'bank.lookup', version, description: 'Looks up a payment.', inputSchema: { type: 'object' }, sideEffect: 'read',
  requiredScopes, dataClassification: 'internal', tenants: [], owner: 'payments', upstream: { server: 'bank', tool: 'lookup' },
});
const version = (v: string, extra: Partial<CatalogVersion> = {}, scopes?: string[]): CatalogVersion => ({
  version: v, status: 'active', quarantined: false, spec: spec(v, scopes), publishedAt: '2026-01-01T00:00:00.000Z', ...extra,
});
const entry = (...versions: CatalogVersion[]): CatalogEntry => ({
  name: 'bank.lookup', upstream: { server: 'bank', transport: 'streamable-http', allowSampling: false, allowElicitation: false }, versions, position: 1,
});
const agent: Principal = { id: 'a', scopes: ['bank:read'], clearance: 'internal' };
const resolved = (e: CatalogEntry, pin?: string) => resolveForPrincipal(e, agent, pin)?.version;

describe('the version an agent gets, with pre-releases published', () => {
  it('gives an unpinned caller the newest stable version, past a newer pre-release and a deprecated release', () => {
    expect(resolved(entry(version('1.0.0'), version('1.1.0', { status: 'deprecated' }), version('1.2.0-rc.1')))).toBe('1.0.0');
  });

  it('offers unpinned callers nothing when the only usable versions are pre-releases', () => {
    const onlyRc = entry(version('1.0.0', { quarantined: true }), version('2.0.0-rc.1'));
    expect(resolved(onlyRc)).toBeUndefined();
    expect(listVisible([onlyRc], agent)).toEqual([]);
    // A stable version the caller may not see does not count either.
    expect(resolved(entry(version('1.0.0', {}, ['bank:admin']), version('2.0.0-rc.1')))).toBeUndefined();
  });

  it('reaches a pre-release by exact pin or by a range that names a pre-release, as node-semver admits it', () => {
    const tool = entry(version('1.0.0'), version('2.0.0-rc.1'), version('2.0.0-rc.2'));
    expect(resolved(tool, '2.0.0-rc.1')).toBe('2.0.0-rc.1');
    expect(resolved(tool, '^2.0.0-rc.1')).toBe('2.0.0-rc.2');
    expect(resolved(tool, '>=1.0.0')).toBe('1.0.0');
    expect(listVisible([tool], agent, { 'bank.lookup': '^2.0.0-rc.1' }).map((t) => t.version.version)).toEqual(['2.0.0-rc.2']);
    // Never a quarantined or hidden pre-release, even by exact pin.
    expect(resolved(entry(version('1.0.0'), version('2.0.0-rc.1', { quarantined: true })), '2.0.0-rc.1')).toBeUndefined();
    expect(resolved(entry(version('1.0.0'), version('2.0.0-rc.1', {}, ['bank:admin'])), '2.0.0-rc.1')).toBeUndefined();
  });
});

describe('the migration window a pin keeps open', () => {
  const deprecated = (v: string, sunsetAt?: string) => version(v, { status: 'deprecated', deprecation: { reason: 'moving on', ...(sunsetAt ? { sunsetAt } : {}) } });
  const pinned = entry(deprecated('1.0.0'), deprecated('1.1.0'), deprecated('1.1.1'), version('2.0.0'));

  it('gives a range pin with no active version in it the newest deprecated one it admits, as an exact pin gets its own', () => {
    expect(resolved(pinned, '^1.0.0')).toBe('1.1.1');
    expect(resolved(pinned, '~1.1.0')).toBe('1.1.1');
    expect(resolved(pinned, '1.1.0')).toBe('1.1.0');
    expect(resolved(pinned)).toBe('2.0.0');
    expect(listVisible([pinned], agent, { 'bank.lookup': '^1.0.0' }).map((t) => t.version.version)).toEqual(['1.1.1']);
  });

  it('still prefers an active version the range admits, and never offers a retired, quarantined or hidden one', () => {
    expect(resolved(entry(deprecated('1.1.1'), version('1.0.0'), version('2.0.0')), '^1.0.0')).toBe('1.0.0');
    expect(resolved(entry(deprecated('1.0.0'), version('1.1.0', { status: 'retired' }), version('2.0.0')), '^1.0.0')).toBe('1.0.0');
    expect(resolved(entry(version('1.0.0', { status: 'retired' }), version('2.0.0')), '^1.0.0')).toBeUndefined();
    expect(resolved(entry(deprecated('1.0.0'), { ...deprecated('1.1.0'), quarantined: true }), '^1.0.0')).toBe('1.0.0');
    expect(resolved(entry(deprecated('1.0.0'), version('1.1.0', { status: 'deprecated' }, ['bank:admin'])), '^1.0.0')).toBe('1.0.0');
  });

  it('closes at the sunset: a version whose sunset has passed reads as retired, before any sweep', () => {
    const sunset = entry(deprecated('1.0.0', '2026-06-01T00:00:00.000Z'), version('2.0.0'));
    const before = Date.parse('2026-05-31T23:59:59.999Z');
    const at = Date.parse('2026-06-01T00:00:00.000Z');
    expect(resolveForPrincipal(withSunsetsApplied(sunset, before), agent, '^1.0.0')?.version).toBe('1.0.0');
    expect(resolveForPrincipal(withSunsetsApplied(sunset, at), agent, '^1.0.0')).toBeUndefined();
    expect(resolveForPrincipal(withSunsetsApplied(sunset, at), agent, '1.0.0')).toBeUndefined();
    expect(withSunsetsApplied(sunset, at).versions.map((v) => v.status)).toEqual(['retired', 'active']);
    expect(withSunsetsApplied(sunset, before)).toBe(sunset);
    expect(listVisible([sunset], agent, { 'bank.lookup': '1.0.0' }, before).map((t) => t.version.version)).toEqual(['1.0.0']);
    expect(listVisible([sunset], agent, { 'bank.lookup': '1.0.0' }, at)).toEqual([]);
  });
});
