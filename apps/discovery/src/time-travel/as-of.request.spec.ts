import { parseAsOfQuery } from './as-of.request';
import { countAtOrBefore } from './log-timeline';

const now = new Date('2026-11-30T12:00:00.000Z');

describe('at= discovery query', () => {
  it('takes an ISO 8601 instant with a time zone, or a date (midnight UTC)', () => {
    expect(parseAsOfQuery({ at: '2026-11-30T11:00:00.250+01:00' }, now)).toEqual({ ok: true, value: { at: Date.parse('2026-11-30T10:00:00.250Z') } });
    expect(parseAsOfQuery({ at: '2026-11-30' }, now)).toEqual({ ok: true, value: { at: Date.parse('2026-11-30T00:00:00Z') } });
    for (const bad of ['2026-02-30', '2026-11-30T10:00:00', 'yesterday', '1732960000', '2026-13-01T00:00:00Z']) {
      expect(parseAsOfQuery({ at: bad }, now)).toEqual({ ok: false, issues: [{ path: 'at', message: expect.stringContaining('ISO 8601') }] });
    }
  });

  it('refuses a missing, malformed or future instant with the parameter named', () => {
    expect(parseAsOfQuery({}, now)).toEqual({ ok: false, issues: [{ path: 'at', message: expect.stringContaining('is required') }] });
    expect(parseAsOfQuery({ at: 'soon' }, now)).toEqual({ ok: false, issues: [{ path: 'at', message: expect.stringContaining('ISO 8601') }] });
    expect(parseAsOfQuery({ at: '2026-11-30T12:00:01Z' }, now)).toEqual({ ok: false, issues: [{ path: 'at', message: expect.stringContaining('not be later than now') }] });
    expect(parseAsOfQuery({ at: ['2026-11-30', '2026-11-29'] }, now)).toEqual({ ok: false, issues: [{ path: 'at', message: expect.stringContaining('once') }] });
    expect(parseAsOfQuery({ at: '2026-11-30', clearance: 'secret', colour: 'red' }, now)).toEqual({ ok: false, issues: [
      { path: 'clearance', message: expect.any(String) }, { path: 'colour', message: 'is not a known query parameter' }, { path: 'principal', message: expect.any(String) },
    ] });
  });

  it('describes another principal with the least rights unless the query grants more', () => {
    expect(parseAsOfQuery({ at: '2026-11-30T12:00:00Z' }, now)).toEqual({ ok: true, value: { at: now.getTime() } });
    expect(parseAsOfQuery({ at: '2026-11-30', principal: 'bob' }, now)).toMatchObject({ ok: true, value: { principal: { id: 'bob', scopes: [], clearance: 'public' } } });
    expect(parseAsOfQuery({ at: '2026-11-30', principal: 'bob', scope: 'a:read  b:write', tenant: 'north', clearance: 'confidential' }, now))
      .toMatchObject({ ok: true, value: { principal: { id: 'bob', scopes: ['a:read', 'b:write'], tenant: 'north', clearance: 'confidential' } } });
  });

  it('finds the prefix of the log that had happened at an instant', () => {
    const instants = [10, 20, 20, 30];
    expect([5, 10, 19, 20, 29, 30, 99].map((at) => countAtOrBefore(instants, at))).toEqual([0, 1, 1, 3, 3, 4, 4]);
  });
});
