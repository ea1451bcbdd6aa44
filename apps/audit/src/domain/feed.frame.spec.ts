import type { AuditEntryContent } from './audit-entry.mapper';
import { feedEvent, toFeedFrame } from './feed.frame';
import { feedViewerMaySee, feedViewerOf, visibilityFactsOf } from './feed.visibility';

const entry: AuditEntryContent & { seq: number } = {
  seq: 12,
  eventId: 'e-12',
  topic: 'estate.registry.events',
  type: 'ToolVersionDeprecated',
  stream: 'payments.lookup',
  tool: 'payments.lookup',
  version: '1.0.0',
  principal: 'ci-bot',
  outcome: null,
  occurredAt: '2025-01-01T00:00:00.000Z',
  payload: {
    id: 'e-12', type: 'ToolVersionDeprecated', version: 1, stream: 'payments.lookup', position: 3,
    occurredAt: '2025-01-01T00:00:00.000Z', actor: 'ci-bot', correlationId: 'c', data: { name: 'payments.lookup', version: '1.0.0', reason: 'line one\nline two' },
  },
};
const options = { source: 'urn:estate:t', schemaBase: 'https://audit.example/v1/schemas/events' };

describe('toFeedFrame', () => {
  it('sends the given id, the CloudEvents type as event name and the CloudEvent as one data line', () => {
    const frame = toFeedFrame(String(entry.seq), feedEvent(entry, options));
    const lines = frame.split('\n');
    expect(lines.slice(0, 2)).toEqual(['id: 12', 'event: io.estate.tool.version.deprecated']);
    expect(JSON.parse(lines[2].slice('data: '.length))).toMatchObject({
      specversion: '1.0', id: 'e-12', source: 'urn:estate:t', subject: 'payments.lookup', estateactor: 'ci-bot',
      dataschema: 'https://audit.example/v1/schemas/events/ToolVersionDeprecated/1.json', data: entry.payload.data,
    });
    expect(frame.endsWith('\n\n')).toBe(true);
    expect(lines).toHaveLength(5);
  });
});

describe('feed visibility', () => {
  const agent = { id: 'a', scopes: ['payments:read'], clearance: 'internal' as const };
  const facts = (requiredScopes: string[]) => visibilityFactsOf({ requiredScopes, tenants: [], dataClassification: 'internal' });

  it('shows an agent the versions discovery would show it, and an admin or auditor everything', () => {
    expect(feedViewerMaySee(feedViewerOf(agent), facts(['payments:read']))).toBe(true);
    expect(feedViewerMaySee(feedViewerOf(agent), facts(['hr:read']))).toBe(false);
    expect(feedViewerMaySee(feedViewerOf({ ...agent, scopes: ['estate:admin'] }), facts(['hr:read']))).toBe(true);
    expect(feedViewerMaySee(feedViewerOf({ ...agent, scopes: ['estate:audit'] }), undefined)).toBe(true);
  });

  it('hides from an agent what has no (or a malformed) published spec', () => {
    expect(visibilityFactsOf({ name: 'x', version: '1.0.0' })).toBeUndefined();
    expect(feedViewerMaySee(feedViewerOf(agent), undefined)).toBe(false);
  });
});
