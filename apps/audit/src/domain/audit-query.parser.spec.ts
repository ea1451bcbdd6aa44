import { DEFAULT_LIMIT, decodeCursor, encodeCursor, parseAuditQuery } from './audit-query.parser';

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
    // Values the trail can never hold would answer an empty page instead of the mistake.
    [{ outcome: 'bogus' }, 'outcome'],
    [{ type: 'ToolVersionPublish' }, 'type'],
    [{ type: 'toolcallcompleted' }, 'type'],
    [{ outcome: 'refused:bogus' }, 'outcome'],
    [{ outcome: 'REFUSED' }, 'outcome'],
    [{ version: 'notsemver' }, 'version'],
    [{ version: 'v1.0.0' }, 'version'],
    [{ version: '1.0' }, 'version'],
    [{ version: '01.0.0' }, 'version'],
    [{ version: '^1.0.0' }, 'version'],
    [{ version: '>=1.0.0 <2.0.0' }, 'version'],
    // A time without a zone would be read in the server's zone; discovery's `at` refuses it too.
    [{ from: '2026-12-02T03:00:00' }, 'from'],
    [{ to: '2026-12-02T03:00' }, 'to'],
    [{ from: '2026-12-02 03:00:00Z' }, 'from'],
    [{ to: '2026-12-02T03:00:00+0100' }, 'to'],
    // Read as absent, an empty filter would answer the whole trail.
    [{ principal: '' }, 'principal'],
    [{ tool: '' }, 'tool'],
    [{ from: '' }, 'from'],
  ])('refuses %j naming %s', (raw, parameter) => {
    const parsed = parseAuditQuery(raw);
    expect(parsed).toMatchObject({ ok: false, parameter });
    expect(parsed.ok ? '' : parsed.message).toContain(parameter);
  });

  it('says how a time is written when it lacks a zone', () => {
    expect(parseAuditQuery({ from: '2026-12-02T03:00:00' })).toEqual({
      ok: false, parameter: 'from', message: '"from" must be an ISO 8601 date or date-time with a time zone (Z or ±hh:mm), such as 2026-12-02T03:00:00Z',
    });
  });

  it.each(['ok', 'tool_error', 'upstream_error', 'answered', 'failed', 'delivered', 'dead_lettered', 'refused', 'refused:invalid_arguments', 'refused:not_allowed', 'refused:unknown'])(
    'accepts the outcome %s', (outcome) => {
      expect(parseAuditQuery({ outcome })).toMatchObject({ ok: true, value: { outcome } });
    },
  );

  it.each(['ServerRegistered', 'ToolVersionPublished', 'ToolVersionDeprecationCallers', 'ToolCallCompleted', 'ToolCallRefused', 'UpstreamRequestRelayed', 'WebhookDelivered'])(
    'accepts the type %s', (type) => {
      expect(parseAuditQuery({ type })).toMatchObject({ ok: true, value: { type } });
    },
  );

  it.each(['1.0.0', '10.20.30', '1.0.0-rc.1', '1.0.0+build.5'])('accepts the version %s', (version) => {
    expect(parseAuditQuery({ version })).toMatchObject({ ok: true, value: { version } });
  });

  it.each([
    ['2026-12-02', '2026-12-02T00:00:00.000Z'],
    ['2026-12-02T03:00:00Z', '2026-12-02T03:00:00.000Z'],
    ['2026-12-02T03:00Z', '2026-12-02T03:00:00.000Z'],
    ['2026-12-02T04:00:00.5+01:00', '2026-12-02T03:00:00.500Z'],
    ['2026-12-01T22:00:00-05:00', '2026-12-02T03:00:00.000Z'],
  ])('accepts the instant %s', (from, iso) => {
    expect(parseAuditQuery({ from, to: from })).toMatchObject({ ok: true, value: { from: new Date(iso), to: new Date(iso) } });
  });
});

describe('cursors', () => {
  it('round-trip and are url-safe', () => {
    const cursor = encodeCursor(9_007_199_254_740_991);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor)).toBe(9_007_199_254_740_991);
  });
});
