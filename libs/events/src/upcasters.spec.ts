import type { EventEnvelope } from './envelope';
import { upcast } from './upcasters';

const base: Omit<EventEnvelope, 'type' | 'version' | 'data'> = {
  id: 'e1', stream: 'server:bank', position: 0, occurredAt: '2025-01-01T00:00:00.000Z', actor: 'admin', correlationId: 'c',
};

describe('upcasting', () => {
  it('lifts ServerRegistered v1 (HTTP only, no namespace) to v2 with the server name as namespace', () => {
    const old: EventEnvelope = { ...base, type: 'ServerRegistered', version: 1, data: { name: 'bank', url: 'http://bank/mcp', owner: 'ops' } };
    expect(upcast(old)).toEqual({
      ...base,
      type: 'ServerRegistered',
      version: 2,
      data: {
        name: 'bank', namespace: 'bank', transport: 'streamable-http', url: 'http://bank/mcp', owner: 'ops',
        allowSampling: false, allowElicitation: false,
      },
    });
  });

  it('leaves a current event untouched', () => {
    const current: EventEnvelope = { ...base, type: 'ToolVersionRetired', version: 1, data: { name: 'a.b', version: '1.0.0', reason: 'x' } };
    expect(upcast(current)).toBe(current);
  });
});
