import type { EventEnvelope } from '@estate/events';
import { eventMessage, eventMessageBytes, measuredEvent } from './event.message';

const envelope = (data: unknown): EventEnvelope => ({
  id: '6f1c0b5e-8d0a-4c55-9a55-0d7f6b7e2a11', type: 'ToolVersionPublished', version: 1, stream: 'tool:payments.lookup', position: 3,
  occurredAt: '2026-11-30T12:00:00.000Z', actor: 'ci-bot', correlationId: 'c-1', data,
});

describe('measuring a stored event', () => {
  it.each([
    ['a contract', { spec: { name: 'payments.lookup', description: 'Looks up a payment — «€» ✓ 𝄞' }, bump: 'minor', changes: [] }],
    ['an empty object', {}],
    ['text needing escapes', { reason: 'line\nbreak "quoted" \\ \u0001' }],
  ])('gives %s the size of the message the relay sends, and the data as the store writes it', (_label, data) => {
    const event = envelope(data);
    expect(measuredEvent(event)).toEqual({ data: JSON.stringify(data), bytes: eventMessageBytes(event) });
    expect(JSON.parse(eventMessage(event).value as string)).toEqual(event);
  });
});
