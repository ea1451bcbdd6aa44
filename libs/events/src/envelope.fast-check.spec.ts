import { compileValidator, type JsonSchema } from '@estate/contracts';
import { ENVELOPE_SCHEMA } from './envelope';
import { isPlainEnvelope, isPlainUtcDateTime } from './envelope.fast-check';

const full = compileValidator(ENVELOPE_SCHEMA as unknown as JsonSchema);
const good = {
  id: 'e1', type: 'ToolVersionPublished', version: 1, stream: 'tool:a', position: 0,
  occurredAt: '2026-11-30T19:20:00.123Z', actor: 'alice', correlationId: 'c', data: {},
};

describe('the fast envelope check', () => {
  it('accepts the envelopes the registry writes', () => {
    expect(isPlainEnvelope(good)).toBe(true);
    expect(full(good).valid).toBe(true);
  });

  it('says no to anything the full validator refuses (never a false yes)', () => {
    const variants: unknown[] = [
      null, [], 'x', { ...good, extra: 1 }, { ...good, id: '' }, { ...good, version: 0 }, { ...good, version: 1.5 },
      { ...good, position: -1 }, { ...good, data: [] }, { ...good, data: null }, { ...good, actor: 3 },
      { ...good, occurredAt: '2026-02-30T00:00:00Z' }, { ...good, occurredAt: '2025-02-29T00:00:00Z' },
      { ...good, occurredAt: '2026-11-30T24:00:00Z' }, { ...good, occurredAt: '2026-11-30' }, { ...good, occurredAt: 'yesterday' },
      (({ correlationId: _c, ...rest }) => rest)(good),
    ];
    for (const value of variants) {
      if (isPlainEnvelope(value)) expect({ value, full: full(value).valid }).toEqual({ value, full: true });
      expect(isPlainEnvelope(value)).toBe(false);
    }
  });

  it('reads the form Date.toISOString() writes by character, and refuses every near miss of it', () => {
    expect(isPlainUtcDateTime('2024-02-29T23:59:59.999Z')).toBe(true);
    expect(isPlainUtcDateTime('0000-01-01T00:00:00.000Z')).toBe(true);
    for (const near of ['2023-02-29T00:00:00.000Z', '2026-04-31T00:00:00.000Z', '2026-13-01T00:00:00.000Z', '2026-00-10T00:00:00.000Z',
      '2026-11-30T24:00:00.000Z', '2026-11-30T23:60:00.000Z', '2026-11-30T23:59:60.000Z', '2026-11-30T23:59:59.99aZ',
      '2026-11-30 23:59:59.000Z', '2026-11-30T23:59:59,000Z', '2026-11-30T23:59:59.000z', '+26-11-30T23:59:59.000Z', '2026-1-030T23:59:59.000Z']) {
      expect({ near, fast: isPlainUtcDateTime(near) }).toEqual({ near, fast: false });
    }
  });

  it('leaves other valid date-times to the full validator rather than misjudging them', () => {
    expect(isPlainUtcDateTime('2024-02-29T23:59:59Z')).toBe(true);
    expect(isPlainUtcDateTime('2026-11-30T19:20:00+01:00')).toBe(false);
    expect(full({ ...good, occurredAt: '2026-11-30T19:20:00+01:00' }).valid).toBe(true);
  });
});
