import fc from 'fast-check';
import { stableStringify } from '../schema-hash.util';
import { sameJson } from './schema-node.util';

const byText = (a: unknown, b: unknown) => stableStringify(a) === stableStringify(b);

/** The same value with every object's members in reverse order, and one member set to undefined where there is one. */
function reordered(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reordered);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).reverse().map(([k, v]) => [k, reordered(v)]));
}

describe('sameJson', () => {
  it('agrees with comparing key-sorted JSON texts, for any two values', () => {
    fc.assert(fc.property(fc.anything(), fc.anything(), (a, b) => sameJson(a, b) === byText(a, b)), { numRuns: 2_000 });
  });

  it('agrees with comparing key-sorted JSON texts for a value and its reordered or slightly changed copy', () => {
    fc.assert(fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
      const copy = reordered(a);
      return sameJson(a, copy) && byText(a, copy) && sameJson([a, b], [copy, b]) === byText([a, b], [copy, b]) && sameJson({ a, b }, { a: copy }) === byText({ a, b }, { a: copy });
    }), { numRuns: 1_000 });
  });

  it('reads undefined members as absent, undefined items and NaN as null, and tells arrays from objects', () => {
    expect(sameJson({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(sameJson([undefined], [null])).toBe(true);
    expect(sameJson(Number.NaN, null)).toBe(true);
    expect(sameJson({ type: 'string', maxLength: 64 }, { maxLength: 64, type: 'string' })).toBe(true);
    expect(sameJson({ type: 'string', maxLength: 64 }, { maxLength: 65, type: 'string' })).toBe(false);
    expect(sameJson([], {})).toBe(false);
    expect(sameJson({ 0: 'a' }, ['a'])).toBe(false);
    expect(sameJson('1', 1)).toBe(false);
  });
});
