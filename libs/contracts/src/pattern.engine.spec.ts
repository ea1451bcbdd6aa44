import { RE2JS } from 're2js';
import { isFlat, linearPatternProblem, linearRegExp } from './pattern.engine';
import { checkSchema, validate } from './schema.validator';

describe('linear-time patterns', () => {
  const catastrophic = '^(a+)+$';
  const attack = `${'a'.repeat(40)}!`;

  it('runs a nested-quantifier pattern on RE2, not on the backtracking engine', () => {
    expect(isFlat(catastrophic)).toBe(false);
    const spy = jest.spyOn(RE2JS.prototype, 'test');
    try {
      // 40 × "a" + "!" would take V8 hours; a generous sanity bound, not a benchmark.
      const started = performance.now();
      expect(validate({ type: 'string', pattern: catastrophic }, attack).valid).toBe(false);
      expect(validate({ type: 'string', pattern: catastrophic }, 'aaaa').valid).toBe(true);
      expect(performance.now() - started).toBeLessThan(1000);
      expect(spy).toHaveBeenCalledWith(attack);
    } finally {
      spy.mockRestore();
    }
  });

  it('keeps patterns V8 runs in linear time on the fast engine and sends the others to RE2', () => {
    for (const p of ['^PAY-[0-9]{8}$', '^[A-Z]{2}[0-9]{2}[A-Z0-9]{10,30}$', '(?<year>\\d{4})-(?:0[1-9]|1[0-2])', '^[a-z]+$', '^PMT-\\d+$']) {
      expect([p, isFlat(p)]).toEqual([p, true]);
    }
    // Nested or quantified groups, two unbounded quantifiers, an unanchored or alternated unbounded one, too much bounded choice.
    for (const p of ['^(a+)+$', '(a|b)*', '(ab){2}', '^\\d+\\d+$', '\\d*x', '^a+|b', 'a?'.repeat(12), '(a)\\1']) {
      expect([p, isFlat(p)]).toEqual([p, false]);
    }
  });

  it('matches like ECMAScript on the patterns schemas use', () => {
    for (const [pattern, text, expected] of [
      ['^PAY-[0-9]{8}$', 'PAY-00001234', true], ['^PAY-[0-9]{8}$', 'PAY-1234', false],
      ['^\\p{L}+$', 'héllo', true], ['^\\p{L}+$', 'h3llo', false], ['^.$', '😀', true],
      ['(?<year>\\d{4})', 'in 2026', true], ['\\u00e9', 'café', true], ['^[^]+$', 'a\nb', true],
    ] as const) {
      expect([pattern, text, linearRegExp(pattern).test(text)]).toEqual([pattern, text, expected]);
    }
  });

  it('refuses, with the schema path, a pattern RE2 cannot run (backreference, lookaround)', () => {
    expect(linearPatternProblem('^[a-z]+$')).toBeUndefined();
    expect(checkSchema({ type: 'object', properties: { code: { type: 'string', pattern: '^(a)\\1$' } } })).toEqual({
      path: '$.properties.code.pattern', code: 'unsupported_pattern', message: expect.stringContaining('backreferences and lookarounds'),
    });
    expect(checkSchema({ type: 'object', patternProperties: { '^(?!x)': { type: 'string' } } })).toMatchObject({
      path: '$.patternProperties["^(?!x)"]', code: 'unsupported_pattern',
    });
    // A "pattern" key inside data (const, enum, default, examples) is not a pattern.
    expect(checkSchema({ type: 'object', default: { pattern: '(?=x)' } })).toBeNull();
  });
});
