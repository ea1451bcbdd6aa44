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

function instanceArb(schema: ObjectSchema): fc.Arbitrary<unknown> {
  const shape: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, prop] of Object.entries(schema.properties)) shape[name] = propertyValueArb(prop);
  // `extra` is declared by neither schema: it probes additionalProperties.
  shape.extra = fc.constantFrom(null, 1, 'x');
  const keys = [...schema.required.filter((name) => name in schema.properties)];
  return fc.record(shape, { requiredKeys: keys });
}

const caseArb = fc
  .tuple(objectSchemaArb, fc.constantFrom(...MUTATIONS), fc.nat(30))
  .map(([before, mutation, pick]) => ({ before, mutation, pick, after: mutate(before, mutation, pick) }))
  .filter((c): c is { before: ObjectSchema; mutation: Mutation; pick: number; after: ObjectSchema } => c.after !== undefined);

const withInstances = caseArb.chain((c) => fc.tuple(fc.constant(c), fc.array(instanceArb(c.before), { minLength: 8, maxLength: 16 })));

describe('classifier properties (fast-check, ajv as oracle)', () => {
  it('(a) minor, patch or none: every value the old schema accepts, the new accepts', () => {
    fc.assert(
      fc.property(withInstances, ([c, values]) => {
        const result = classifySchemaChange(c.before, c.after);
        if (result.bump === 'major') return;
        for (const value of values) {
          if (accepts(c.before, value)) expect(accepts(c.after, value)).toBe(true);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('(b) major with a witness: old accepts it, new rejects it', () => {
    let witnesses = 0;
    fc.assert(
      fc.property(caseArb, (c) => {
        const result = classifySchemaChange(c.before, c.after);
        if (result.bump !== 'major' || result.witness === undefined) return;
        witnesses += 1;
        expect(accepts(c.before, result.witness)).toBe(true);
        expect(accepts(c.after, result.witness)).toBe(false);
      }),
      { numRuns: 1000 },
    );
    expect(witnesses).toBeGreaterThan(300);
  });

  it('(c) each mutation gets the bump its rule names (certainly breaking ones are major); output reverses loosening', () => {
    fc.assert(
      fc.property(caseArb, (c) => {
        const input = classifySchemaChange(c.before, c.after).bump;
        expect(input).toBe(expectedBump(c.before, c.mutation));
        // A looser contract breaks whoever reads it: the same change on an output schema is major.
        if (input === 'minor' && c.mutation !== 'add-optional' && c.mutation !== 'description') {
          expect(classifySchemaChange(c.before, c.after, 'output').bump).toBe('major');
        }
      }),
      { numRuns: 1000 },
    );
  });
});
