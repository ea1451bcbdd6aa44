import type { CatalogEntry, CatalogVersion } from '@estate/events';
import type { ToolSpec } from '@estate/contracts';
import { detectDrift } from './drift.detector';

const schema = { type: 'object', properties: { reference: { type: 'string', pattern: '^PMT-[0-9]+$' } }, required: ['reference'] };
const spec = (version: string): ToolSpec => ({
  name: 'bank.lookup', version, description: 'Looks up a payment.', inputSchema: schema, sideEffect: 'read',
  requiredScopes: [], dataClassification: 'internal', tenants: [], owner: 'team', upstream: { server: 'bank', tool: 'lookup' },
});
const version = (v: string, extra: Partial<CatalogVersion> = {}): CatalogVersion => ({ version: v, status: 'active', quarantined: false, spec: spec(v), publishedAt: '2026-01-01T00:00:00Z', ...extra });
const entry = (versions: CatalogVersion[]): CatalogEntry => ({
  name: 'bank.lookup', position: 1, versions,
  upstream: { server: 'bank', transport: 'streamable-http', url: 'http://x', allowSampling: false, allowElicitation: false },
});

describe('drift detection', () => {
  const same = { name: 'lookup', description: 'Looks up a payment.', inputSchema: { required: ['reference'], properties: { reference: { pattern: '^PMT-[0-9]+$', type: 'string' } }, type: 'object' } };

  it('treats a schema with its keys in another order as the same contract', () => {
    expect(detectDrift('bank', [entry([version('1.0.0')])], [same], new Set())).toEqual({ drifted: [], agreeing: ['bank.lookup@1.0.0'], neverAgreed: [] });
  });

  it('flags a version the upstream once served as published and now changed', () => {
    const changed = { ...same, description: 'Looks up a payment by IBAN.' };
    const verdict = detectDrift('bank', [entry([version('1.0.0')])], [changed], new Set(['bank.lookup@1.0.0']));
    expect(verdict.drifted).toEqual([{ name: 'bank.lookup', version: '1.0.0', upstreamTool: 'lookup', fields: ['description'] }]);
    const gone = detectDrift('bank', [entry([version('1.0.0')])], [], new Set(['bank.lookup@1.0.0']));
    expect(gone.drifted[0].fields).toEqual(['missing']);
  });

  it('only warns about a version the upstream never served as published, and skips retired, quarantined and other servers', () => {
    const changed = { ...same, inputSchema: { type: 'object' } };
    const verdict = detectDrift('bank', [entry([version('1.0.0'), version('0.9.0', { status: 'retired' }), version('0.8.0', { quarantined: true })])], [changed], new Set());
    expect(verdict.drifted).toEqual([]);
    expect(verdict.neverAgreed.map((f) => [f.version, f.fields])).toEqual([['1.0.0', ['inputSchema']]]);
    expect(detectDrift('other', [entry([version('1.0.0')])], [changed], new Set(['bank.lookup@1.0.0'])).drifted).toEqual([]);
  });
});
