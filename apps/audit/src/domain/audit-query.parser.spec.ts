import { DEFAULT_LIMIT, decodeCursor, encodeCursor, parseAuditQuery, parseLastEventId } from './audit-query.parser';

describe('parseAuditQuery', () => {
  it('defaults the limit and leaves absent filters undefined', () => {
    expect(parseAuditQuery({})).toEqual({ ok: true, value: { limit: DEFAULT_LIMIT } });
  });

  it('reads every filter', () => {
    const parsed = parseAuditQuery({
      tool: 'payments.lookup', version: '1.0.0', principal: 'agent-7', type: 'ToolCallCompleted', outcome: 'refused',
      from: '2025-01-01', to: '2025-01-02T00:00:00Z', limit: '10', cursor: encodeCursor(42),
    });
    expect(parsed).toEqual({
      ok: true,
      value: {
        tool: 'payments.lookup', version: '1.0.0', principal: 'agent-7', type: 'ToolCallCompleted', outcome: 'refused',
        from: new Date('2025-01-01T00:00:00Z'), to: new Date('2025-01-02T00:00:00Z'), limit: 10, beforeSeq: 42,
      },
    });
  });

  it.each([
    [{ limit: '0' }, 'limit'],
    [{ limit: '501' }, 'limit'],
    [{ limit: '2.5' }, 'limit'],
    [{ limit: 'ten' }, 'limit'],
    [{ from: 'yesterday' }, 'from'],
    [{ from: '2025-13-45' }, 'from'],
    [{ to: '1' }, 'to'],
    [{ cursor: 'not-a-cursor' }, 'cursor'],
    [{ cursor: '%%%' }, 'cursor'],
    [{ cursor: Buffer.from('seq:-1').toString('base64url') }, 'cursor'],
    [{ tool: ['a', 'b'] }, 'tool'],
    [{ from: '0000-01-01' }, 'from'],
    [{ to: '10000-01-01' }, 'to'],
    [{ from: '2024-02-30' }, 'from'],
    [{ from: '2023-02-29T00:00:00Z' }, 'from'],
    [{ from: '0001-01-01T00:00:00+01:00' }, 'from'],
    [{ tool: 'a\u0000b' }, 'tool'],
    [{ principal: 'p\ud800' }, 'principal'],
    [{ version: 'v'.repeat(257) }, 'version'],
  ])('refuses %j naming %s', (raw, parameter) => {
    const parsed = parseAuditQuery(raw);
    expect(parsed).toMatchObject({ ok: false, parameter });
    expect(parsed.ok ? '' : parsed.message).toContain(parameter);
  });
});

describe('cursors', () => {
  it('round-trip and are url-safe', () => {
    const cursor = encodeCursor(9_007_199_254_740_991);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor)).toBe(9_007_199_254_740_991);
  });
});

describe('parseLastEventId', () => {
  it('accepts a seq or nothing and refuses anything else', () => {
    expect(parseLastEventId(undefined)).toEqual({ ok: true, value: undefined });
    expect(parseLastEventId('17')).toEqual({ ok: true, value: 17 });
    expect(parseLastEventId('abc')).toMatchObject({ ok: false, parameter: 'Last-Event-ID' });
  });
});
