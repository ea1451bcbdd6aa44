import type { Principal, ToolSpec } from '@estate/contracts';
import type { CatalogEntry, CatalogVersion } from '@estate/events';
import { listVisible, resolveForPrincipal } from './catalog.view';

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
