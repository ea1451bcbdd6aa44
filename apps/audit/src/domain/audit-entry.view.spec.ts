import type { AuditEntryContent } from './audit-entry.mapper';
import { toEntryView, toSseFrame } from './audit-entry.view';

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
    occurredAt: '2025-01-01T00:00:00.000Z', actor: 'ci-bot', correlationId: 'c', data: { reason: 'line one\nline two' },
  },
};

describe('toSseFrame', () => {
  it('sends the seq as id, the type as event name and the view as one data line', () => {
    const frame = toSseFrame(entry);
    const lines = frame.split('\n');
    expect(lines.slice(0, 2)).toEqual(['id: 12', 'event: ToolVersionDeprecated']);
    expect(lines[2].startsWith('data: ')).toBe(true);
    expect(JSON.parse(lines[2].slice('data: '.length))).toEqual(toEntryView(entry));
    expect(frame.endsWith('\n\n')).toBe(true);
    expect(lines).toHaveLength(5);
  });
});
