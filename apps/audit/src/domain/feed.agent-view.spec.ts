import { toCloudEvent, type EventEnvelope } from '@estate/events';
import { agentFeedEvent } from './feed.agent-view';
import { feedViewerOf } from './feed.visibility';

const options = { source: 'urn:estate:t', schemaBase: 'https://audit.example/v1/schemas/events' };
const spec = {
  name: 'qa.echo', version: '1.1.0', title: 'Echo', description: 'Echoes its input.',
  inputSchema: { type: 'object' }, outputSchema: { type: 'object' }, sideEffect: 'read',
  requiredScopes: ['qa:read'], tenants: ['acme'], dataClassification: 'internal', owner: 'qa-team', upstream: { server: 'qa', tool: 'echo' },
};

const event = (type: string, data: Record<string, unknown>) => {
  const envelope: EventEnvelope = {
    id: `e-${type}`, type, version: type === 'ServerRegistered' ? 2 : 1, stream: 'qa.echo', position: 4,
    occurredAt: '2025-01-01T00:00:00.000Z', actor: 'release-bot', correlationId: 'c-1', data,
  };
  return toCloudEvent(envelope, options);
};

describe('agentFeedEvent: the registry view of a change, for a reader without governance scopes', () => {
  it('shows a publish as MCP clients see the spec, with its bump and without the diff', () => {
    const published = event('ToolVersionPublished', {
      spec, bump: 'minor', changes: [{ path: '$.requiredScopes', kind: 'changed', breaking: true, message: 'now needs qa:admin' }],
    });
    expect(agentFeedEvent(published)?.data).toEqual({
      spec: { name: 'qa.echo', version: '1.1.0', title: 'Echo', description: 'Echoes its input.', inputSchema: { type: 'object' }, outputSchema: { type: 'object' }, sideEffect: 'read' },
      bump: 'minor',
    });
  });

  it('names no actor, no schema the cut data would fail and no stream position, and keeps the rest of the envelope', () => {
    const published = event('ToolVersionPublished', { spec, bump: 'initial', changes: [] });
    const { estateactor: _actor, dataschema: _schema, estateposition: _position, data: _data, ...rest } = published;
    const shown = agentFeedEvent(published);
    expect(shown).not.toHaveProperty('estateactor');
    expect(shown).not.toHaveProperty('dataschema');
    expect(shown).not.toHaveProperty('estateposition');
    expect(shown).toMatchObject(rest);
  });

  it('keeps a deprecation, retirement and sunset whole, and a quarantine without its reason', () => {
    const deprecated = { name: 'qa.echo', version: '1.0.0', reason: 'moving', sunsetAt: '2025-06-01T00:00:00.000Z', replacement: '2.0.0' };
    expect(agentFeedEvent(event('ToolVersionDeprecated', deprecated))?.data).toEqual(deprecated);
    expect(agentFeedEvent(event('ToolVersionRetired', { name: 'qa.echo', version: '1.0.0', reason: 'gone' }))?.data).toEqual({ name: 'qa.echo', version: '1.0.0', reason: 'gone' });
    expect(agentFeedEvent(event('ToolVersionSunsetReached', { name: 'qa.echo', version: '1.0.0', sunsetAt: '2025-06-01' }))?.data).toEqual({ name: 'qa.echo', version: '1.0.0', sunsetAt: '2025-06-01' });
    expect(agentFeedEvent(event('ToolQuarantined', { name: 'qa.echo', version: '1.0.0', reason: 'upstream drifted: $.owner' }))?.data).toEqual({ name: 'qa.echo', version: '1.0.0' });
  });

  it('shows nothing of a server registration or an event type it does not know', () => {
    expect(agentFeedEvent(event('ServerRegistered', { name: 'qa', namespace: 'qa', transport: 'stdio', command: 'qa-server', owner: 'qa-team' }))).toBeUndefined();
    expect(agentFeedEvent(event('ToolVersionDeprecationCallers', { name: 'qa.echo', version: '1.0.0', callers: [] }))).toBeUndefined();
  });

  it('shows a malformed recorded publish as whatever allowed fields it has, never more', () => {
    expect(agentFeedEvent(event('ToolVersionPublished', { spec: 'not a spec', owner: 'qa-team' }))?.data).toEqual({ spec: {} });
  });
});

describe('feedViewerOf: who reads events in full', () => {
  const principal = (scopes: string[]) => ({ id: 'p', scopes, clearance: 'internal' as const });

  it('admins and auditors see every event; publishers see their tools in full; anyone else as the registry shows an agent', () => {
    expect(feedViewerOf(principal(['estate:admin']))).toEqual({ kind: 'all' });
    expect(feedViewerOf(principal(['estate:audit']))).toEqual({ kind: 'all' });
    expect(feedViewerOf(principal(['estate:publish', 'qa:read']))).toMatchObject({ kind: 'principal', governance: true });
    expect(feedViewerOf(principal(['qa:read']))).toMatchObject({ kind: 'principal', governance: false });
  });
});
