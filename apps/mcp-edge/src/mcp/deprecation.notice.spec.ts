import type { ToolSpec } from '@estate/contracts';
import type { CatalogEntry, CatalogVersion } from '@estate/events';
import { deprecationNotice, withDeprecationNotice } from './deprecation.notice';

const spec = (version: string, requiredScopes: string[] = ['bank:read']): ToolSpec => ({
  name: 'bank.lookup', version, description: 'Looks up a payment.', inputSchema: { type: 'object' }, sideEffect: 'read',
  requiredScopes, dataClassification: 'internal', tenants: [], owner: 'payments', upstream: { server: 'bank', tool: 'lookup' },
});
const version = (v: string, extra: Partial<CatalogVersion> = {}, scopes?: string[]): CatalogVersion => ({
  version: v, status: 'active', quarantined: false, spec: spec(v, scopes), publishedAt: '2026-01-01T00:00:00.000Z', ...extra,
});
const deprecated = (replacement?: string) => version('1.0.0', {
  status: 'deprecated', deprecation: { reason: 'use 2.x', sunsetAt: '2027-01-01T00:00:00.000Z', replacement, deprecatedAt: '2026-11-30T10:00:00.000Z' },
});
const entry = (...versions: CatalogVersion[]): CatalogEntry => ({ name: 'bank.lookup', upstream: { server: 'bank', transport: 'streamable-http', allowSampling: false, allowElicitation: false }, versions, position: 1 });
const reader = { id: 'alice', scopes: ['bank:read'], clearance: 'internal' as const };

describe('deprecation notice', () => {
  it('says nothing for an active version', () => {
    const active = version('2.0.0');
    expect(deprecationNotice(entry(active), active, reader)).toBeUndefined();
  });

  it('names since, sunset and the successor the owner named', () => {
    const old = deprecated('1.1.0');
    expect(deprecationNotice(entry(old, version('1.1.0'), version('2.0.0')), old, reader)).toEqual({
      tool: 'bank.lookup', version: '1.0.0', reason: 'use 2.x', since: '2026-11-30T10:00:00.000Z', sunset: '2027-01-01T00:00:00.000Z', successor: '1.1.0',
    });
  });

  it('never names a successor the caller cannot see: the newest it may use instead, or none', () => {
    const old = deprecated('3.0.0');
    const hidden = version('3.0.0', {}, ['bank:admin']);
    expect(deprecationNotice(entry(old, version('2.0.0'), hidden), old, reader)?.successor).toBe('2.0.0');
    expect(deprecationNotice(entry(old, hidden), old, reader)?.successor).toBeUndefined();
  });

  it('computes the successor as an unpinned call resolves: never a pre-release, unless the owner named it', () => {
    const old = deprecated();
    expect(deprecationNotice(entry(old, version('1.1.0'), version('2.0.0-rc.1')), old, reader)?.successor).toBe('1.1.0');
    expect(deprecationNotice(entry(old, version('2.0.0-rc.1')), old, reader)?.successor).toBeUndefined();
    const named = deprecated('2.0.0-rc.1');
    expect(deprecationNotice(entry(named, version('1.1.0'), version('2.0.0-rc.1')), named, reader)?.successor).toBe('2.0.0-rc.1');
  });

  it('adds the notice under io.estate/deprecation and keeps the result\'s own _meta', () => {
    const notice = deprecationNotice(entry(deprecated()), deprecated(), reader);
    const marked = withDeprecationNotice({ content: [], _meta: { 'io.estate/ref': 'r1' } }, notice!);
    expect(marked._meta).toEqual({ 'io.estate/ref': 'r1', 'io.estate/deprecation': { reason: 'use 2.x', since: '2026-11-30T10:00:00.000Z', sunset: '2027-01-01T00:00:00.000Z' } });
  });
});
