import type { Principal, ToolSpec } from '@estate/contracts';
import { bankSpecs } from '../../../../examples/bank/bank.specs';
import { serverViewFor, toolSummaryFor, toolViewFor, versionViewFor } from './registry-read.policy';
import type { ToolState, ToolVersionState } from './tool.decider';

const [lookup] = bankSpecs('bank');
const version = (v: string, extra: Partial<ToolSpec> = {}) => ({ spec: { ...lookup, version: v, ...extra }, quarantined: false });

// Given a tool with a retired, a deprecated, a quarantined and an active version, and one only a tenant may see
const state: ToolState = {
  versions: new Map(Object.entries({
    '1.0.0': { ...version('1.0.0'), status: 'retired' },
    '1.1.0': { ...version('1.1.0'), status: 'deprecated', sunsetAt: '2027-01-01T00:00:00.000Z' },
    '1.2.0': { ...version('1.2.0'), status: 'active', quarantined: true },
    '1.3.0': { ...version('1.3.0'), status: 'active' },
    '2.0.0': { ...version('2.0.0', { tenants: ['north'] }), status: 'active' },
  } satisfies Record<string, ToolVersionState>)),
};
const agent: Principal = { id: 'a', scopes: ['bank:read'], clearance: 'internal' };
const publisher: Principal = { id: 'p', scopes: ['estate:publish'], clearance: 'public' };
const stranger: Principal = { id: 's', scopes: [], clearance: 'restricted' };

describe('registry read policy', () => {
  it('lists for an agent only the versions it could discover at the edge, newest as latest', () => {
    expect(toolSummaryFor(agent, 'bank.lookup', state)).toEqual({ name: 'bank.lookup', latest: '1.3.0', versions: { '1.1.0': 'deprecated', '1.3.0': 'active' } });
    expect(toolSummaryFor({ ...agent, tenant: 'north' }, 'bank.lookup', state)?.latest).toBe('2.0.0');
  });

  it('reports as latest the newest stable version, a pre-release only when the tool has no stable one', () => {
    const withRc: ToolState = { versions: new Map([...state.versions, ['2.1.0-rc.1', { ...version('2.1.0-rc.1'), status: 'active' }]]) };
    expect(toolSummaryFor(agent, 'bank.lookup', withRc)).toEqual({ name: 'bank.lookup', latest: '1.3.0', versions: { '1.1.0': 'deprecated', '1.3.0': 'active', '2.1.0-rc.1': 'active' } });
    expect(toolSummaryFor(publisher, 'bank.lookup', withRc)?.latest).toBe('2.0.0');
    const onlyRcs: ToolState = { versions: new Map([['0.1.0-rc.1', { ...version('0.1.0-rc.1'), status: 'active' }], ['0.1.0-rc.2', { ...version('0.1.0-rc.2'), status: 'active' }]]) };
    expect(toolSummaryFor(agent, 'bank.lookup', onlyRcs)?.latest).toBe('0.1.0-rc.2');
  });

  it('lists every version for publishers and admins', () => {
    expect(toolSummaryFor(publisher, 'bank.lookup', state)?.versions).toEqual({ '1.0.0': 'retired', '1.1.0': 'deprecated', '1.2.0': 'quarantined', '1.3.0': 'active', '2.0.0': 'active' });
    expect(toolViewFor(publisher, 'bank.lookup', state)?.versions['1.2.0']).toEqual(state.versions.get('1.2.0'));
  });

  it('shows an agent a version as MCP clients see it, with its status and sunset, and nothing of governance', () => {
    expect(versionViewFor(agent, state, '1.1.0')).toEqual({
      version: '1.1.0', status: 'deprecated', sunsetAt: '2027-01-01T00:00:00.000Z',
      tool: { name: 'bank.lookup', title: lookup.title, description: lookup.description, inputSchema: lookup.inputSchema, annotations: expect.any(Object) },
    });
    for (const hidden of ['1.0.0', '1.2.0', '2.0.0', '9.9.9']) expect(versionViewFor(agent, state, hidden)).toBeUndefined();
  });

  it('answers a tool the viewer may not see exactly as a missing one: nothing', () => {
    expect(toolSummaryFor(stranger, 'bank.lookup', state)).toBeUndefined();
    expect(toolViewFor(stranger, 'bank.lookup', state)).toBeUndefined();
    expect(toolViewFor(publisher, 'bank.nothing', { versions: new Map() })).toBeUndefined();
  });

  it('shows server registrations to publishers and admins only', () => {
    const server = { name: 'bank', namespace: 'bank', transport: 'streamable-http' as const, url: 'http://127.0.0.1:9100/mcp', owner: 'payments-team', allowSampling: false, allowElicitation: false };
    expect(serverViewFor(publisher, server)).toBe(server);
    expect(serverViewFor({ ...stranger, scopes: ['estate:admin'] }, server)).toBe(server);
    expect(serverViewFor(agent, server)).toBeUndefined();
  });
});
