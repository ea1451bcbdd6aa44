import Ajv2020, { ValidateFunction } from 'ajv/dist/2020';
import fc from 'fast-check';
import { classifySchemaChange } from './schema-change.classifier';
import { MUTATIONS, Mutation, ObjectSchema, expectedBump, mutate, objectSchemaArb } from './schema-mutation.fixture';

/** The oracle is ajv itself, independent of the validator the classifier uses for witnesses. */
const ajv = new Ajv2020({ strict: false });
const compiled = new Map<string, ValidateFunction>();
function accepts(schema: object, value: unknown): boolean {
  const key = JSON.stringify(schema);
  let check = compiled.get(key);
  if (!check) {
    check = ajv.compile(schema);
    compiled.set(key, check);
  }
  return check(value) as boolean;
}

/** Values near each property's constraints, most of them valid; the oracle filters. */
function propertyValueArb(schema: Record<string, unknown>): fc.Arbitrary<unknown> {
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]), 'zzz', 7);
  switch (schema.type) {
    case 'integer': {
      const min = typeof schema.minimum === 'number' ? schema.minimum : -12;
      const max = typeof schema.maximum === 'number' ? schema.maximum : 12;
      return fc.integer({ min: Math.min(min, max) - 2, max: Math.max(min, max) + 2 });
    }
    case 'number':
      return fc.oneof(fc.integer({ min: -25, max: 25 }), fc.double({ min: -25, max: 25, noNaN: true }));
    case 'string':
      return fc.oneof(fc.constantFrom('', 'a', 'ab', 'abc', 'b', 'bb', 'bcd', 'c', 'aaaa'), fc.string({ maxLength: 9 }));
    case 'boolean':
      return fc.boolean();
    default:
      return fc.array(fc.integer({ min: -1, max: 6 }), { maxLength: 6 });
  }
}

/** Any small JSON value: what a caller could have sent under a name an open schema did not declare. */
const anyJsonArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, true, false, 0, 1, -2, 1.5, '', 'a', 'ab', [], {}),
  fc.string({ maxLength: 4 }),
  fc.array(fc.integer({ min: -1, max: 3 }), { maxLength: 2 }),
  fc.dictionary(fc.constantFrom('k', 'm'), fc.integer({ min: 0, max: 2 }), { maxKeys: 1 }),
);

/**
 * Instances of `before`, with keys `before` does not declare: `extra` (declared by neither
 * schema: it probes additionalProperties) and every name only `after` declares, set to values
 * near its new constraints or to anything at all. On an open `before` the latter are values the
 * old contract accepted under a name the new one now constrains.
 */
function instanceArb(before: ObjectSchema, after: ObjectSchema): fc.Arbitrary<unknown> {
  const shape: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, prop] of Object.entries(before.properties)) shape[name] = propertyValueArb(prop);
  shape.extra = fc.constantFrom(null, 1, 'x');
  for (const [name, prop] of Object.entries(after.properties)) {
    if (!(name in before.properties)) shape[name] = fc.oneof(propertyValueArb(prop), anyJsonArb);
  }
  const keys = [...before.required.filter((name) => name in before.properties)];
  return fc.record(shape, { requiredKeys: keys });
}

type Case = { before: ObjectSchema; mutation: Mutation; pick: number; after: ObjectSchema };

const caseArb = fc
  .tuple(objectSchemaArb, fc.constantFrom(...MUTATIONS), fc.nat(30))
  .map(([before, mutation, pick]) => ({ before, mutation, pick, after: mutate(before, mutation, pick) }))
  .filter((c): c is Case => c.after !== undefined);

const withInstances = caseArb.chain((c) => fc.tuple(fc.constant(c), fc.array(instanceArb(c.before, c.after), { minLength: 8, maxLength: 16 })));

/** The property changes of an add-optional case; a third of the runs, so the open-schema cases are many. */
const addedArb = fc.tuple(objectSchemaArb, fc.nat(30)).map(([before, pick]): Case => ({ before, mutation: 'add-optional', pick, after: mutate(before, 'add-optional', pick)! }));
const mixedWithInstances = fc.oneof(withInstances, addedArb.chain((c) => fc.tuple(fc.constant(c), fc.array(instanceArb(c.before, c.after), { minLength: 8, maxLength: 16 }))));

describe('classifier properties (fast-check, ajv as oracle)', () => {
  it('(a) strict: whatever is not major accepts every value the old schema accepted, extra keys on open schemas included', () => {
    fc.assert(
      fc.property(mixedWithInstances, ([c, values]) => {
        const result = classifySchemaChange(c.before, c.after, 'input', 'strict');
        if (result.bump === 'major') return;
        for (const value of values) {
          if (accepts(c.before, value)) expect(accepts(c.after, value)).toBe(true);
        }
      }),
      { numRuns: 1000 },
    );
  });

  /*
   * Under standard, for every generated pair and instance v: if the classification is not major
   * and the old schema accepts v while the new one rejects it, then some change is flagged
   * `narrows` and carries a witness the old schema accepts and the new one rejects. Any witness
   * a flagged change carries is such a value (none can exist when the old schema accepts
   * nothing), the strict policy rates every flagged change major, and the strict verdicts the
   * standard report carries are the strict policy's own.
   */
  it('(a) standard: a value that stops passing under a change not rated major is flagged narrows, with a witness', () => {
    let narrowing = 0;
    fc.assert(
      fc.property(mixedWithInstances, ([c, values]) => {
        const result = classifySchemaChange(c.before, c.after, 'input', 'standard');
        const strict = classifySchemaChange(c.before, c.after, 'input', 'strict');
        expect(result.strictBump).toBe(strict.bump);
        expect(result.changes.map((change) => change.strict)).toEqual(strict.changes.map((change) => change.strict));
        const flagged = result.changes.filter((change) => change.narrows);
        for (const change of flagged) {
          expect(change.strict.bump).toBe('major');
          if (change.witness === undefined) continue;
          expect(accepts(c.before, change.witness)).toBe(true);
          expect(accepts(c.after, change.witness)).toBe(false);
        }
        if (result.bump === 'major') return;
        if (!values.some((value) => accepts(c.before, value) && !accepts(c.after, value))) return;
        narrowing += 1;
        expect(flagged.some((change) => change.witness !== undefined)).toBe(true);
      }),
      { numRuns: 1000 },
    );
    // The generators must keep producing the case this property is about.
    expect(narrowing).toBeGreaterThan(100);
  });

  it.each(['standard', 'strict'] as const)('(b) %s: major with a witness: old accepts it, new rejects it', (policy) => {
    let witnesses = 0;
    fc.assert(
      // Under strict the open-schema additions are major too, so they join the cases.
      fc.property(policy === 'strict' ? fc.oneof(caseArb, addedArb) : caseArb, (c) => {
        const result = classifySchemaChange(c.before, c.after, 'input', policy);
        if (result.bump !== 'major' || result.witness === undefined) return;
        witnesses += 1;
        expect(accepts(c.before, result.witness)).toBe(true);
        expect(accepts(c.after, result.witness)).toBe(false);
      }),
      { numRuns: 1000 },
    );
    expect(witnesses).toBeGreaterThan(300);
  });

  it.each(['standard', 'strict'] as const)('(c) %s: each mutation gets the bump its rule names (certainly breaking ones are major); output reverses loosening', (policy) => {
    fc.assert(
      fc.property(caseArb, (c) => {
        const input = classifySchemaChange(c.before, c.after, 'input', policy).bump;
        expect(input).toBe(expectedBump(c.before, c.mutation, c.pick, policy));
        // A looser contract breaks whoever reads it: the same change on an output schema is major.
        // Not a default: the edge fills defaults into calls only, so on an output it is an annotation.
        if (input === 'minor' && c.mutation !== 'add-optional' && c.mutation !== 'description' && c.mutation !== 'default') {
          expect(classifySchemaChange(c.before, c.after, 'output', policy).bump).toBe('major');
        }
      }),
      { numRuns: 1000 },
    );
  });
});
