import type { Principal, ToolSpec } from '@estate/contracts';
import type { CatalogEntry, CatalogVersion } from '@estate/events';
import { candidatesFor, currentUpstream, qualify, reachableServers } from './upstream-access';

const ALICE: Principal = { id: 'alice', scopes: ['notes:read'], clearance: 'internal' };

function entry(name: string, server: string, version: Partial<CatalogVersion> = {}, position = 1, scope = 'notes:read'): CatalogEntry {
  const tool = name.startsWith(`${server}.`) ? name.slice(server.length + 1) : name;
  const spec: ToolSpec = {
    name, version: '1.0.0', description: 'd', inputSchema: { type: 'object' }, sideEffect: 'read', requiredScopes: [scope],
    dataClassification: 'internal', tenants: [], owner: 'o', upstream: { server, tool },
  };
  return {
    name,
    upstream: { server, transport: 'streamable-http', url: `http://${server}`, allowSampling: position > 1, allowElicitation: false },
    versions: [{ version: '1.0.0', status: 'active', quarantined: false, spec, publishedAt: '2026-01-01T00:00:00Z', ...version }],
    position,
  };
}

describe('who may reach an upstream server besides its tools', () => {
  it('needs one usable tool of the server: published, not retired, not quarantined, visible', () => {
    const entries = [
      entry('notes.count', 'notes'),
      entry('memo.count', 'memo', { status: 'retired' }),
      entry('drift.count', 'drift', { quarantined: true }),
      entry('crm.find', 'crm', {}, 1, 'crm:read'),
      entry('old.count', 'old', { status: 'deprecated' }),
    ];
    expect(reachableServers(entries, ALICE).map((s) => s.server)).toEqual(['notes', 'old']);
  });

  it('reads the namespace off the tools: the server name, or empty for bare names', () => {
    const servers = reachableServers([entry('count', 'plain'), entry('notes.count', 'notes')], ALICE);
    expect(servers.map((s) => [s.server, s.namespace])).toEqual([['notes', 'notes'], ['plain', '']]);
    expect(servers.map((s) => qualify(s.namespace, 'summarize'))).toEqual(['notes.summarize', 'summarize']);
  });

  it('maps a downstream name to the namespaced server first, then to bare-named servers', () => {
    const servers = reachableServers([entry('count', 'plain'), entry('notes.count', 'notes')], ALICE);
    expect(candidatesFor(servers, 'notes.summarize').map((c) => [c.target.server, c.local])).toEqual([
      ['notes', 'summarize'],
      ['plain', 'notes.summarize'],
    ]);
    expect(candidatesFor(servers, 'notes.').map((c) => c.target.server)).toEqual(['plain']);
    expect(candidatesFor(reachableServers([entry('notes.count', 'notes')], ALICE), 'summarize')).toEqual([]);
  });

  it('takes the registration from the newest entry of the server', () => {
    const upstream = currentUpstream([entry('notes.count', 'notes', {}, 1), entry('notes.shout', 'notes', {}, 5)], 'notes');
    expect(upstream?.allowSampling).toBe(true);
    expect(currentUpstream([], 'notes')).toBeUndefined();
  });
});
