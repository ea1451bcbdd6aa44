import { validate } from '../schema.validator';
import type { JsonSchema } from '../schema-dialect.policy';
import { classifySchemaChange } from './schema-change.classifier';
import type { ChangeClassification, CompatPolicy, SchemaChange } from './schema-change.classifier';

/*
 * The two cases where an open schema (no `additionalProperties: false`) makes the usual list of
 * changes and the who-breaks rule disagree, under both policies. Every witness is checked with
 * the validator the edge uses for tools/call (schema.validator.ts), not with the classifier's
 * own reasoning.
 */

type Schema = Record<string, unknown>;
const accepts = (schema: Schema, value: unknown) => validate(schema as JsonSchema, value).valid;

const order = (props: Schema = {}, extra: Schema = {}): Schema => ({
  type: 'object',
  properties: { id: { type: 'string', minLength: 1 }, quantity: { type: 'integer', minimum: 1 }, ...props },
  required: ['id'],
  ...extra,
});

function only(result: ChangeClassification, kind: SchemaChange['kind']): SchemaChange {
  const found = result.changes.filter((change) => change.kind === kind);
  expect(found).toHaveLength(1);
  return found[0];
}

const POLICIES: CompatPolicy[] = ['standard', 'strict'];

describe('removing a property from an open schema', () => {
  const before = order({ note: { type: 'string' } });
  const after = order();

  it.each(POLICIES)('is major under %s, names the removed path, and shows a call whose value is now ignored', (policy) => {
    const result = classifySchemaChange(before, after, 'input', policy);
    expect(result).toMatchObject({ policy, bump: 'major', strictBump: 'major' });
    const removed = only(result, 'property-removed');
    expect(removed).toMatchObject({ path: '$.properties.note', bump: 'major', breaking: true, strict: { bump: 'major', breaking: true } });
    expect(removed.message).toMatch(/^note: property removed; .*silently lost/);
    expect(removed.narrows).toBeUndefined();
    // The value still passes both contracts: nothing is refused, the property is just no longer declared.
    expect(removed.witness).toMatchObject({ note: expect.any(String) });
    expect(accepts(before, removed.witness)).toBe(true);
    expect(accepts(after, removed.witness)).toBe(true);
    // No value is refused, so there is no witness of a refusal.
    expect(result.witness).toBeUndefined();
  });

  it('stays major with a refusal witness when additionalProperties is false', () => {
    const closed = classifySchemaChange(order({ note: { type: 'string' } }, { additionalProperties: false }), order({}, { additionalProperties: false }));
    expect(closed.bump).toBe('major');
    expect(only(closed, 'property-removed').witness).toBeUndefined();
    expect(accepts(order({ note: { type: 'string' } }, { additionalProperties: false }), closed.witness)).toBe(true);
    expect(accepts(order({}, { additionalProperties: false }), closed.witness)).toBe(false);
  });

  it('on an output schema follows the values: open means consumers may now get anything under the name (major)', () => {
    expect(classifySchemaChange(before, after, 'output').bump).toBe('major');
    expect(only(classifySchemaChange(before, after, 'output'), 'property-removed').witness).toBeUndefined();
  });
});

describe('adding an optional property to an open schema', () => {
  const before = order();
  const after = order({ note: { type: 'string' } });

  it('is minor under standard, flagged narrows with a value the old contract accepted and the new one rejects', () => {
    const result = classifySchemaChange(before, after, 'input', 'standard');
    expect(result).toMatchObject({ policy: 'standard', bump: 'minor', strictBump: 'major' });
    expect(result.witness).toBeUndefined();
    const added = only(result, 'property-added-optional');
    expect(added).toMatchObject({ path: '$.properties.note', bump: 'minor', breaking: false, narrows: true, strict: { bump: 'major', breaking: true } });
    expect(added.witness).toHaveProperty('note');
    expect(accepts(before, added.witness)).toBe(true);
    expect(accepts(after, added.witness)).toBe(false);
  });

  it('is major under strict, with that witness on the change and on the classification', () => {
    const result = classifySchemaChange(before, after, 'input', 'strict');
    expect(result).toMatchObject({ policy: 'strict', bump: 'major', strictBump: 'major' });
    const added = only(result, 'property-added-optional');
    expect(added).toMatchObject({ bump: 'major', breaking: true, narrows: true, strict: { bump: 'major', breaking: true } });
    for (const witness of [added.witness, result.witness]) {
      expect(witness).toHaveProperty('note');
      expect(accepts(before, witness)).toBe(true);
      expect(accepts(after, witness)).toBe(false);
    }
  });

  it.each(POLICIES)('the issue\'s example under %s: {"note": 5} worked before note became a string', (policy) => {
    expect(accepts(before, { id: 'a', note: 5 })).toBe(true);
    expect(accepts(after, { id: 'a', note: 5 })).toBe(false);
    const added = only(classifySchemaChange(before, after, 'input', policy), 'property-added-optional');
    expect(added.narrows).toBe(true);
    expect(typeof (added.witness as { note: unknown }).note).not.toBe('string');
  });

  it.each(POLICIES)('a declaration that still accepts anything does not narrow, and stays minor under %s', (policy) => {
    const result = classifySchemaChange(before, order({ note: { description: 'free text' } }), 'input', policy);
    expect(result).toMatchObject({ bump: 'minor', strictBump: 'minor' });
    const added = only(result, 'property-added-optional');
    expect(added.narrows).toBeUndefined();
    expect(added.witness).toBeUndefined();
  });

  it.each(POLICIES)('where additionalProperties was false it is a plain widening, minor under %s', (policy) => {
    const result = classifySchemaChange(order({}, { additionalProperties: false }), order({ note: { type: 'string' } }, { additionalProperties: false }), 'input', policy);
    expect(result).toMatchObject({ bump: 'minor', strictBump: 'minor' });
    expect(only(result, 'property-added-optional').narrows).toBeUndefined();
  });

  it('nested in an open object property, the narrowing is flagged where it happens', () => {
    const nested = (props: Schema) => order({ meta: { type: 'object', properties: props } });
    const result = classifySchemaChange(nested({}), nested({ tag: { type: 'integer' } }), 'input', 'standard');
    expect(result.bump).toBe('minor');
    const added = only(result, 'property-added-optional');
    expect(added).toMatchObject({ path: '$.properties.meta.properties.tag', narrows: true });
    expect(accepts(nested({}), added.witness)).toBe(true);
    expect(accepts(nested({ tag: { type: 'integer' } }), added.witness)).toBe(false);
    expect(classifySchemaChange(nested({}), nested({ tag: { type: 'integer' } }), 'input', 'strict').bump).toBe('major');
  });

  it('on an output schema narrows nothing a consumer relies on: minor under both policies, no flag', () => {
    for (const policy of POLICIES) {
      const result = classifySchemaChange(before, after, 'output', policy);
      expect(result).toMatchObject({ bump: 'minor', strictBump: 'minor' });
      expect(only(result, 'property-added-optional').narrows).toBeUndefined();
    }
  });
});
