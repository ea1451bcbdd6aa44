import { resolveForPrincipal } from '@estate/catalog';
import type { Principal } from '@estate/contracts';
import type { CatalogEntry, CatalogVersion } from '@estate/events';
import { bankSpecs } from '../../../../examples/bank/bank.specs';
import { callableVersions, toolsAsOf } from './as-of.view';

const [lookup] = bankSpecs('bank');
const version = (v: string, status: CatalogVersion['status'], extra: Partial<CatalogVersion> = {}, tenants: string[] = []): CatalogVersion => ({
  version: v, status, quarantined: false, spec: { ...lookup, version: v, tenants }, publishedAt: '2026-11-30T10:00:00.000Z', ...extra,
});
// Given a tool with a retired, a deprecated, a quarantined, an active and a tenant-only version
const entry: CatalogEntry = {
  name: 'bank.lookup', upstream: { server: 'bank', transport: 'streamable-http', allowSampling: false, allowElicitation: false }, position: 5,
  versions: [
    version('1.0.0', 'retired'), version('1.1.0', 'deprecated', { deprecation: { reason: 'old', sunsetAt: '2027-01-01T00:00:00.000Z', replacement: '1.3.0' } }),
    version('1.2.0', 'active', { quarantined: true }), version('1.3.0', 'active'), version('2.0.0', 'active', {}, ['north']),
  ],
};
const principals: Principal[] = [
  { id: 'a', scopes: ['bank:read'], clearance: 'internal' }, { id: 'n', tenant: 'north', scopes: ['bank:read'], clearance: 'internal' },
  { id: 's', scopes: [], clearance: 'restricted' }, { id: 'p', scopes: ['bank:read'], clearance: 'public' },
];

describe('what a principal could call in a folded catalog', () => {
  it('is exactly the versions an exact pin resolves to, for every principal', () => {
    for (const principal of principals) {
      const byPin = entry.versions.filter((v) => resolveForPrincipal(entry, principal, v.version)?.version === v.version).map((v) => v.version);
      expect(callableVersions(entry, principal).map((v) => v.version)).toEqual(byPin);
    }
  });

  it('names the unpinned version and every callable one with its deprecation', () => {
    const [tool] = toolsAsOf([entry], principals[0]);
    expect(tool).toMatchObject({ name: 'bank.lookup', version: '1.3.0', status: 'active', callable: [
      { version: '1.1.0', status: 'deprecated', sunsetAt: '2027-01-01T00:00:00.000Z', replacement: '1.3.0' }, { version: '1.3.0', status: 'active' },
    ] });
    expect(toolsAsOf([entry], principals[1])[0].version).toBe('2.0.0');
    expect(toolsAsOf([entry], principals[2])).toEqual([]);
    expect(tool).not.toHaveProperty('requiredScopes');
  });

  it('stops offering a deprecated version at its sunset, though the sweep had not yet retired it', () => {
    const answers = new WeakMap();
    const callableAt = (at: string) => toolsAsOf([entry], principals[0], answers, Date.parse(at))[0].callable.map((v) => v.version);
    expect(callableAt('2026-12-31T23:59:59.999Z')).toEqual(['1.1.0', '1.3.0']);
    expect(callableAt('2027-01-01T00:00:00.000Z')).toEqual(['1.3.0']);
    expect(callableAt('2026-12-31T23:59:59.999Z')).toEqual(['1.1.0', '1.3.0']);
  });

  it('names a deprecation\'s replacement only when the principal may see it', () => {
    const hidden = { ...entry, versions: [version('1.1.0', 'deprecated', { deprecation: { reason: 'old', replacement: '2.0.0' } }), version('2.0.0', 'active', {}, ['north'])] };
    expect(toolsAsOf([hidden], principals[0])[0].callable).toEqual([{ version: '1.1.0', status: 'deprecated' }]);
    expect(toolsAsOf([hidden], principals[1])[0].callable).toContainEqual({ version: '1.1.0', status: 'deprecated', replacement: '2.0.0' });
  });

  it('names no unpinned version for a tool only pre-releases make usable, and passes a newer pre-release over for a release', () => {
    const tool = (...versions: CatalogVersion[]): CatalogEntry => ({ ...entry, versions });
    const onlyRc = toolsAsOf([tool(version('1.0.0', 'active', { quarantined: true }), version('2.0.0-rc.1', 'active'))], principals[0]);
    expect(onlyRc).toMatchObject([{ version: null, status: null, callable: [{ version: '2.0.0-rc.1', status: 'active' }] }]);
    const withRelease = toolsAsOf([tool(version('1.0.0', 'active'), version('1.1.0', 'deprecated'), version('1.2.0-rc.1', 'active'))], principals[0]);
    expect(withRelease[0]).toMatchObject({ version: '1.0.0', status: 'active' });
  });
});
