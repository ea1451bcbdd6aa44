import { parseInstant } from './iso-instant';

describe('parseInstant', () => {
  it('reads a date-time with its zone, or a date as midnight UTC', () => {
    expect(parseInstant('2026-11-30T10:00:00Z')).toEqual({ ok: true, time: Date.parse('2026-11-30T10:00:00Z'), withTime: true });
    expect(parseInstant('2026-11-30T11:00:00.250+01:00')).toEqual({ ok: true, time: Date.parse('2026-11-30T10:00:00.250Z'), withTime: true });
    expect(parseInstant('2026-11-30')).toEqual({ ok: true, time: Date.parse('2026-11-30T00:00:00Z'), withTime: false });
  });

  it.each(['2026-11-30T10:00:00', '2026-11-30 10:00:00Z', '2026-11-30T10:00:00+0100', 'yesterday', '1732960000', '2026-13-01T00:00:00Z'])(
    'refuses the form of %s', (text) => {
      expect(parseInstant(text)).toEqual({ ok: false, problem: 'form' });
    },
  );

  it.each(['2026-02-30', '2023-02-29T00:00:00Z', '0000-01-01', '0001-01-01T00:00:00+01:00'])('refuses %s, a day that does not exist or lies outside years 1 to 9999', (text) => {
    expect(parseInstant(text)).toEqual({ ok: false, problem: 'day' });
  });
});
