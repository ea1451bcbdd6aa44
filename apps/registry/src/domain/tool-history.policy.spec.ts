import type { Principal } from '@estate/contracts';
import type { EventEnvelope } from '@estate/events';
import { bankSpecs } from '../../../../examples/bank/bank.specs';
import { toolHistoryFor } from './tool-history.policy';

const [lookup] = bankSpecs('bank');
let position = 0;
const stored = (type: string, data: unknown, actor = 'ci'): EventEnvelope => ({
  id: `id-${position}`, type, version: 1, stream: 'tool:bank.lookup', position: position++, occurredAt: `2026-11-30T10:0${position}:00.000Z`, actor, correlationId: 'c', data,
});

// Given bank.lookup published in 1.0.0, deprecated, 2.0.0 only for the north tenant, 1.0.0 retired, 2.0.0 quarantined
const stream = [
  stored('ToolVersionPublished', { spec: lookup, bump: 'initial', changes: [] }),
  stored('ToolVersionDeprecated', { name: lookup.name, version: '1.0.0', reason: 'use 2.0.0', replacement: '2.0.0' }, 'owner'),
  stored('ToolVersionPublished', { spec: { ...lookup, version: '2.0.0', tenants: ['north'] }, bump: 'major', changes: [{ path: '$.inputSchema', kind: 'x', breaking: true, message: 'm' }] }),
  stored('ToolVersionRetired', { name: lookup.name, version: '1.0.0', reason: 'gone' }, 'admin'),
  stored('ToolQuarantined', { name: lookup.name, version: '2.0.0', reason: 'leaks card numbers' }, 'security'),
];
const admin: Principal = { id: 'a', scopes: ['estate:admin'], clearance: 'public' };
const north: Principal = { id: 'n', tenant: 'north', scopes: ['bank:read'], clearance: 'internal' };

describe('tool history policy', () => {
  it('lists every change for governance readers, with who made it and why', () => {
    const changes = toolHistoryFor(admin, stream) ?? [];
    expect(changes.map((c) => [c.change, c.version, c.actor])).toEqual([
      ['published', '1.0.0', 'ci'], ['deprecated', '1.0.0', 'owner'], ['published', '2.0.0', 'ci'], ['retired', '1.0.0', 'admin'], ['quarantined', '2.0.0', 'security'],
    ]);
    expect(changes[2].summary).toBe('published 2.0.0: major bump, 1 change (1 breaking)');
    expect(changes[1]).toMatchObject({ at: '2026-11-30T10:02:00.000Z', summary: 'deprecated 1.0.0: use 2.0.0 (use 2.0.0)', details: { reason: 'use 2.0.0', replacement: '2.0.0' } });
    expect(changes[4].summary).toBe('quarantined 2.0.0: leaks card numbers');
  });

  it('answers an agent that can no longer discover any version exactly as for a missing tool', () => {
    // Every version it may see is retired or quarantined now.
    expect(toolHistoryFor(north, stream)).toBeUndefined();
    expect(toolHistoryFor(admin, [])).toBeUndefined();
  });

  it('shows an agent the changes of the versions it may see, without actors, diffs or quarantine reasons', () => {
    const open = stream.slice(0, 4);
    const outsider: Principal = { id: 'o', scopes: ['bank:read'], clearance: 'internal' };
    expect(toolHistoryFor(outsider, open)).toBeUndefined();
    const changes = toolHistoryFor(north, [...open, stored('ToolQuarantined', { name: lookup.name, version: '1.0.0', reason: 'secret' })]) ?? [];
    expect(changes.map((c) => `${c.change} ${c.version}`)).toEqual(['published 1.0.0', 'deprecated 1.0.0', 'published 2.0.0', 'retired 1.0.0', 'quarantined 1.0.0']);
    expect(changes.every((c) => c.actor === undefined)).toBe(true);
    expect(changes[2].details).toEqual({ bump: 'major' });
    expect(changes[4]).toMatchObject({ summary: 'quarantined 1.0.0', details: {} });
    expect(changes[2].summary).toBe('published 2.0.0: major bump');
  });

  it("numbers an agent's changes without the gaps hidden versions would leave", () => {
    // 1.1.0 needs a scope the north agent lacks: its publish sits between two the agent may see.
    const hidden = { ...lookup, version: '1.1.0', requiredScopes: ['bank:admin'] };
    const withHidden = [stream[0], stored('ToolVersionPublished', { spec: hidden, bump: 'minor', changes: [] }), stream[2]];
    expect((toolHistoryFor(north, withHidden) ?? []).map((c) => [c.position, c.version])).toEqual([[0, '1.0.0'], [1, '2.0.0']]);
    expect((toolHistoryFor(admin, withHidden) ?? []).map((c) => c.version)).toEqual(['1.0.0', '1.1.0', '2.0.0']);
  });

  it('names a replacement to an agent only when it may see that version', () => {
    const hidden = { ...lookup, version: '1.1.0', requiredScopes: ['bank:admin'] };
    const deprecated = [
      stream[0], stored('ToolVersionPublished', { spec: hidden, bump: 'minor', changes: [] }),
      stored('ToolVersionDeprecated', { name: lookup.name, version: '1.0.0', reason: 'go', replacement: '1.1.0' }),
    ];
    const agent = (toolHistoryFor(north, deprecated) ?? [])[1];
    expect(agent).toMatchObject({ change: 'deprecated', summary: 'deprecated 1.0.0: go', details: { reason: 'go' } });
    expect(JSON.stringify(agent)).not.toContain('1.1.0');
    expect((toolHistoryFor(admin, deprecated) ?? [])[2]).toMatchObject({ summary: 'deprecated 1.0.0: go (use 1.1.0)', details: { replacement: '1.1.0' } });
  });
});
