import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { DESCRIPTION_CHANGE_BUMP, classifySchemaChange } from './schema-change.classifier';
import type { ChangeClassification } from './schema-change.classifier';
import { repair } from '../repair';

const ajv = new Ajv2020({ strict: false, allErrors: true, logger: false });
addFormats(ajv);
const accepts = (schema: object, value: unknown) => ajv.validate(schema, value) as boolean;

type Schema = Record<string, unknown>;
const payment = (extra: Schema = {}, props: Schema = {}): Schema => ({
  type: 'object',
  properties: {
    amount: { type: 'number', minimum: 0, maximum: 1000 },
    currency: { type: 'string', enum: ['GBP', 'USD'] },
    reference: { type: 'string', minLength: 1, maxLength: 10 },
    ...props,
  },
  required: ['amount', 'currency'],
  ...extra,
});

function only(result: ChangeClassification, kind: string) {
  const found = result.changes.filter((c) => c.kind === kind);
  expect(found).toHaveLength(1);
  return found[0];
}

/** A major input change must come with a witness the old schema accepts and the new rejects. */
function expectMajorWithWitness(before: Schema, after: Schema, kind: string): ChangeClassification {
  const result = classifySchemaChange(before, after);
  expect(result.bump).toBe('major');
  expect(only(result, kind).breaking).toBe(true);
  expect(result.witness).toBeDefined();
  expect(accepts(before, result.witness)).toBe(true);
  expect(accepts(after, result.witness)).toBe(false);
  return result;
}

function expectMinor(before: Schema, after: Schema, kind: string): void {
  const result = classifySchemaChange(before, after);
  expect(result.bump).toBe('minor');
  expect(only(result, kind).breaking).toBe(false);
  expect(result.witness).toBeUndefined();
}

describe('who breaks: the six asymmetry cases', () => {
  it('who breaks: adding a required property is major', () => {
    const after = payment({ required: ['amount', 'currency', 'payer'] }, { payer: { type: 'string' } });
    expectMajorWithWitness(payment(), after, 'property-added-required');
  });

  it('who breaks: adding an optional property is minor', () => {
    expectMinor(payment(), payment({}, { payer: { type: 'string' } }), 'property-added-optional');
  });

  it('who breaks: removing a required property while additionalProperties stays open is major (its value would be ignored)', () => {
    const after: Schema = { type: 'object', properties: { currency: { type: 'string', enum: ['GBP', 'USD'] } }, required: ['currency'] };
    const before: Schema = { ...after, properties: { ...(after.properties as Schema), amount: { type: 'number' } }, required: ['amount', 'currency'] };
    const result = classifySchemaChange(before, after);
    expect(result.bump).toBe('major');
    expect(only(result, 'property-removed')).toMatchObject({ path: '$.properties.amount', breaking: true });
    expect(only(result, 'property-removed').message).toMatch(/additionalProperties is open/);
  });

  it('who breaks: removing a property where additionalProperties is false is major', () => {
    const before = payment({ additionalProperties: false });
    const props = { ...(before.properties as Schema) };
    delete props.reference;
    const result = expectMajorWithWitness(before, { ...before, properties: props }, 'property-removed');
    expect(result.changes[0].message).toMatch(/additionalProperties is false/);
    expect(result.witness).toHaveProperty('reference');
  });

  it('who breaks: narrowing an enum is major, widening it is minor', () => {
    const narrowed = payment({}, { currency: { type: 'string', enum: ['GBP'] } });
    expect(expectMajorWithWitness(payment(), narrowed, 'enum-narrowed').witness).toMatchObject({ currency: 'USD' });
    expectMinor(payment(), payment({}, { currency: { type: 'string', enum: ['GBP', 'USD', 'EUR'] } }), 'enum-widened');
  });

  it('who breaks: tightening a bound is major, loosening it is minor', () => {
    expectMajorWithWitness(payment(), payment({}, { amount: { type: 'number', minimum: 1, maximum: 1000 } }), 'bound-tightened');
    expectMinor(payment(), payment({}, { amount: { type: 'number', minimum: -5, maximum: 1000 } }), 'bound-loosened');
  });

  it('who breaks: changing a type is major', () => {
    expectMajorWithWitness(payment(), payment({}, { reference: { type: 'integer' } }), 'type-changed');
  });
});

describe('major rules (input)', () => {
  const field = (schema: Schema) => ({ type: 'object', properties: { v: schema }, required: ['v'] });
  it.each([
    ['minimum raised', { type: 'number', minimum: 0 }, { type: 'number', minimum: 1 }],
    ['maximum lowered', { type: 'number', maximum: 10 }, { type: 'number', maximum: 9 }],
    ['exclusiveMinimum added', { type: 'number', minimum: 0 }, { type: 'number', minimum: 0, exclusiveMinimum: 0 }],
    ['exclusiveMaximum lowered', { type: 'number', exclusiveMaximum: 10 }, { type: 'number', exclusiveMaximum: 5 }],
    ['minLength raised', { type: 'string' }, { type: 'string', minLength: 2 }],
    ['maxLength lowered', { type: 'string', maxLength: 5 }, { type: 'string', maxLength: 2 }],
    ['minItems raised', { type: 'array' }, { type: 'array', minItems: 1 }],
    ['maxItems lowered', { type: 'array', maxItems: 3 }, { type: 'array', maxItems: 0 }],
    ['minProperties raised', { type: 'object' }, { type: 'object', minProperties: 1 }],
    ['maxProperties lowered', { type: 'object', maxProperties: 2 }, { type: 'object', maxProperties: 0 }],
    ['multipleOf 2 -> 4', { type: 'integer', multipleOf: 2 }, { type: 'integer', multipleOf: 4 }],
  ])('bound tightened: %s', (_name, before, after) => {
    expectMajorWithWitness(field(before), field(after), 'bound-tightened');
  });

  it('uniqueItems turned on', () => {
    expectMajorWithWitness(field({ type: 'array', items: { type: 'integer' } }), field({ type: 'array', items: { type: 'integer' }, uniqueItems: true }), 'unique-items-required');
  });
  it('pattern added and pattern changed', () => {
    expectMajorWithWitness(field({ type: 'string' }), field({ type: 'string', pattern: '^[A-Z]{3}$' }), 'pattern-added');
    expectMajorWithWitness(field({ type: 'string', pattern: '^[A-Z]+$' }), field({ type: 'string', pattern: '^[A-Z]{3}$' }), 'pattern-changed');
  });
  it('format added (formats are asserted)', () => {
    expectMajorWithWitness(field({ type: 'string' }), field({ type: 'string', format: 'date' }), 'format-added');
  });
  it('type narrowed: integer from number', () => {
    expectMajorWithWitness(field({ type: 'number' }), field({ type: 'integer' }), 'type-narrowed');
  });
  it('type narrowed: a type removed from a type list', () => {
    expectMajorWithWitness(field({ type: ['string', 'null'] }), field({ type: 'string' }), 'type-narrowed');
  });
  it('const changed', () => {
    expectMajorWithWitness(field({ const: 'a' }), field({ const: 'b' }), 'const-changed');
  });
  it('additionalProperties closed (absent -> false, true -> schema)', () => {
    expectMajorWithWitness(payment(), payment({ additionalProperties: false }), 'additional-properties-closed');
    expectMajorWithWitness(payment({ additionalProperties: true }), payment({ additionalProperties: { type: 'integer' } }), 'additional-properties-closed');
  });
  it('optional property made required', () => {
    expectMajorWithWitness(payment(), payment({ required: ['amount', 'currency', 'reference'] }), 'made-required');
  });
});

describe('minor rules (input)', () => {
  const field = (schema: Schema) => ({ type: 'object', properties: { v: schema }, required: ['v'] });
  it.each([
    ['minimum lowered', { type: 'number', minimum: 1 }, { type: 'number', minimum: 0 }],
    ['maximum removed', { type: 'number', maximum: 1 }, { type: 'number' }],
    ['maxLength raised', { type: 'string', maxLength: 2 }, { type: 'string', maxLength: 5 }],
    ['minItems lowered', { type: 'array', minItems: 2 }, { type: 'array', minItems: 1 }],
    ['multipleOf 4 -> 2', { type: 'integer', multipleOf: 4 }, { type: 'integer', multipleOf: 2 }],
  ])('bound loosened: %s', (_name, before, after) => {
    expectMinor(field(before), field(after), 'bound-loosened');
  });
  it.each([
    ['type widened: number from integer', { type: 'integer' }, { type: 'number' }, 'type-widened'],
    ['enum removed', { type: 'string', enum: ['a'] }, { type: 'string' }, 'enum-widened'],
    ['pattern removed', { type: 'string', pattern: '^a' }, { type: 'string' }, 'pattern-removed'],
    ['format removed', { type: 'string', format: 'date' }, { type: 'string' }, 'format-removed'],
    ['uniqueItems turned off', { type: 'array', uniqueItems: true }, { type: 'array' }, 'unique-items-relaxed'],
    ['const removed', { const: 1 }, {}, 'const-removed'],
  ])('%s', (_name, before, after, kind) => {
    expectMinor(field(before), field(after), kind);
  });
  it('additionalProperties opened and required dropped', () => {
    expectMinor(payment({ additionalProperties: false }), payment({ additionalProperties: true }), 'additional-properties-opened');
    expectMinor(payment(), payment({ required: ['amount'] }), 'made-optional');
  });
});

describe('patch rules and the description policy', () => {
  it.each([
    ['title', { title: 'Amount' }, 'title-changed'],
    ['examples', { examples: [5] }, 'annotation-changed'],
    ['$comment', { $comment: 'why' }, 'annotation-changed'],
    ['deprecated', { deprecated: true }, 'annotation-changed'],
    ['readOnly', { readOnly: true }, 'annotation-changed'],
    ['writeOnly', { writeOnly: true }, 'annotation-changed'],
    ['default', { default: 10 }, 'default-changed'],
  ])('%s is patch', (_name, extra, kind) => {
    // Optional here: a default on a required property is filled in by the edge (see "defaults").
    const optionalAmount = { required: ['currency'] };
    const result = classifySchemaChange(payment(optionalAmount), payment(optionalAmount, { amount: { type: 'number', minimum: 0, maximum: 1000, ...extra } }));
    expect(result.bump).toBe('patch');
    expect(only(result, kind).path).toMatch(/^\$\.properties\.amount\./);
  });
  it('a description change inside a schema uses DESCRIPTION_CHANGE_BUMP (minor)', () => {
    expect(DESCRIPTION_CHANGE_BUMP).toBe('minor');
    const result = classifySchemaChange(payment(), payment({ description: 'Pay a supplier.' }));
    expect(result.bump).toBe(DESCRIPTION_CHANGE_BUMP);
    expect(only(result, 'description-changed').path).toBe('$.description');
  });
  it('identical schemas, and schemas that differ only in key order, are none', () => {
    expect(classifySchemaChange(payment(), payment())).toEqual({ policy: 'standard', bump: 'none', strictBump: 'none', changes: [] });
    const reordered = { required: ['amount', 'currency'], properties: payment().properties, type: 'object' };
    expect(classifySchemaChange(payment(), reordered).bump).toBe('none');
  });
  it('an unreferenced $defs change is patch', () => {
    const result = classifySchemaChange(payment({ $defs: { x: { type: 'string' } } }), payment({ $defs: { x: { type: 'integer' } } }));
    expect(result.bump).toBe('patch');
  });
});

describe('output direction reverses the rule', () => {
  it('a stricter output is minor, a looser output is major', () => {
    const tighter = payment({}, { amount: { type: 'number', minimum: 1, maximum: 1000 } });
    expect(classifySchemaChange(payment(), tighter, 'output').bump).toBe('minor');
    expect(classifySchemaChange(tighter, payment(), 'output').bump).toBe('major');
    expect(classifySchemaChange(payment(), payment({}, { currency: { type: 'string' } }), 'output').bump).toBe('major');
  });
  it('adding an optional output field is minor; a new required one is minor too', () => {
    expect(classifySchemaChange(payment(), payment({}, { fee: { type: 'number' } }), 'output').bump).toBe('minor');
    const required = payment({ required: ['amount', 'currency', 'fee'] }, { fee: { type: 'number' } });
    expect(classifySchemaChange(payment(), required, 'output').bump).toBe('minor');
  });
  it('an output witness is a value the new schema returns and the old rejects', () => {
    const looser = payment({}, { currency: { type: 'string', enum: ['GBP', 'USD', 'EUR'] } });
    const result = classifySchemaChange(payment(), looser, 'output');
    expect(accepts(looser, result.witness)).toBe(true);
    expect(accepts(payment(), result.witness)).toBe(false);
  });
});

describe('defaults: the edge fills them in before it validates a call', () => {
  const withA = (a: Schema, extra: Schema = {}): Schema => ({ type: 'object', properties: { a }, required: ['a'], additionalProperties: false, ...extra });
  const edgeAccepts = (schema: Schema, value: unknown) => accepts(schema, repair(schema, value).value);

  it('removing the default of a required property is major, with the call that relied on it as witness', () => {
    const before = withA({ type: 'string', default: 'x' });
    const after = withA({ type: 'string' });
    const result = classifySchemaChange(before, after);
    expect(result.bump).toBe('major');
    expect(only(result, 'default-changed')).toMatchObject({ path: '$.properties.a.default', breaking: true });
    expect(result.witness).toEqual({});
    expect(edgeAccepts(before, result.witness)).toBe(true);
    expect(edgeAccepts(after, result.witness)).toBe(false);
  });

  it('changing the default of a required property to another valid value is patch', () => {
    const result = classifySchemaChange(withA({ type: 'string', default: 'x' }), withA({ type: 'string', default: 'y' }));
    expect(result.bump).toBe('patch');
    expect(only(result, 'default-changed').message).toContain('calls that omit a now send "y" upstream');
  });

  it('changing it to a value its own schema rejects is major (the edge would fill in a refused value)', () => {
    const result = classifySchemaChange(withA({ type: 'string', maxLength: 3, default: 'ok' }), withA({ type: 'string', maxLength: 3, default: 'waytoolong' }));
    expect(result.bump).toBe('major');
    expect(result.witness).toEqual({});
  });

  it('adding a valid default to a required property is minor; removing one from an optional property is patch', () => {
    expect(classifySchemaChange(withA({ type: 'string' }), withA({ type: 'string', default: 'x' })).bump).toBe('minor');
    const optional = (a: Schema) => withA(a, { required: [] });
    expect(classifySchemaChange(optional({ type: 'string', default: 'x' }), optional({ type: 'string' })).bump).toBe('patch');
  });

  it('adding a required property with a valid default is minor: the edge accepts calls without it', () => {
    const before = withA({ type: 'string' });
    const after = { ...before, properties: { a: { type: 'string' }, b: { type: 'string', default: 'd' } }, required: ['a', 'b'] };
    const result = classifySchemaChange(before, after);
    expect(result.bump).toBe('minor');
    expect(only(result, 'property-added-required').message).toContain('a default the edge fills in');
    expect(edgeAccepts(after, { a: 'v' })).toBe(true);
    const invalidDefault = { ...after, properties: { ...after.properties, b: { type: 'string', maxLength: 0, default: 'd' } } };
    expect(classifySchemaChange(before, invalidDefault).bump).toBe('major');
  });

  it('making a property with a valid default required is minor', () => {
    const before = withA({ type: 'string', default: 'x' }, { required: [] });
    expect(classifySchemaChange(before, withA({ type: 'string', default: 'x' })).bump).toBe('minor');
  });

  it('stays major where the edge does not fill (inside allOf) or the object can see the filled value', () => {
    const inAllOf = (b: Schema, required: string[]): Schema => ({ type: 'object', allOf: [{ properties: { b }, required }] });
    expect(classifySchemaChange(inAllOf({ type: 'string' }, []), inAllOf({ type: 'string', default: 'd' }, ['b'])).bump).toBe('major');
    const bounded = (extra: Schema): Schema => ({ type: 'object', properties: { a: { type: 'string' } }, maxProperties: 1, ...extra });
    const added = bounded({ properties: { a: { type: 'string' }, b: { type: 'string', default: 'd' } }, required: ['b'] });
    expect(classifySchemaChange(bounded({}), added).bump).toBe('major');
  });

  it('an output schema is not repaired: its defaults stay annotations', () => {
    expect(classifySchemaChange(withA({ type: 'string', default: 'x' }), withA({ type: 'string' }), 'output').bump).toBe('patch');
  });
});

describe('looser or equivalent changes the rules used to call breaking', () => {
  const one = (a: Schema): Schema => ({ type: 'object', properties: { a }, required: ['a'], additionalProperties: false });

  it('const -> an enum that keeps it is minor (a widening); enum -> a const inside it is major', () => {
    const result = classifySchemaChange(one({ const: 'x' }), one({ enum: ['x', 'y'] }));
    expect(result.bump).toBe('minor');
    expect(only(result, 'enum-widened').message).toContain('"y" now accepted');
    expectMajorWithWitness(one({ enum: ['x', 'y'] }), one({ const: 'x' }), 'enum-narrowed');
    expect(classifySchemaChange(one({ const: 'x' }), one({ enum: ['x'] })).bump).toBe('patch');
  });

  it('integer exclusiveMinimum 1 -> minimum 1 is minor; -> minimum 2 is the same bound (patch); -> minimum 3 is major', () => {
    const int = (bounds: Schema) => one({ type: 'integer', ...bounds });
    expect(classifySchemaChange(int({ exclusiveMinimum: 1 }), int({ minimum: 1 })).bump).toBe('minor');
    expect(classifySchemaChange(int({ exclusiveMinimum: 1 }), int({ minimum: 2 })).bump).toBe('patch');
    expectMajorWithWitness(int({ exclusiveMinimum: 1 }), int({ minimum: 3 }), 'bound-tightened');
    expectMajorWithWitness(one({ type: 'number', minimum: 1 }), one({ type: 'number', exclusiveMinimum: 1 }), 'bound-tightened');
  });

  it('patternProperties added to a closed schema is minor; removed, major with a witness', () => {
    const closed = one({ type: 'string' });
    const patterned = { ...closed, patternProperties: { '^x': { type: 'string' } } };
    expect(classifySchemaChange(closed, patterned).bump).toBe('minor');
    expect(classifySchemaChange(patterned, closed).bump).toBe('major');
    // A declared name the pattern matches is constrained too: not provable, stays major.
    const overlapping = { ...closed, properties: { xa: { type: 'string' } }, required: ['xa'] };
    expect(classifySchemaChange(overlapping, { ...overlapping, patternProperties: { '^x': { type: 'integer' } } }).bump).toBe('major');
  });

  it('oneOf -> anyOf over the same members is patch when the members are disjoint types, minor otherwise; the reverse is major', () => {
    const members = [{ type: 'string' }, { type: 'integer' }];
    expect(classifySchemaChange(one({ oneOf: members }), one({ anyOf: members })).bump).toBe('patch');
    const overlapping = [{ type: 'number' }, { type: 'integer' }];
    expect(classifySchemaChange(one({ oneOf: overlapping }), one({ anyOf: overlapping })).bump).toBe('minor');
    expectMajorWithWitness(one({ anyOf: overlapping }), one({ oneOf: overlapping }), 'composition-changed');
  });

  it('a format the validator does not check (iban) is patch, and the message says so; a checked one is major', () => {
    const result = classifySchemaChange(one({ type: 'string' }), one({ type: 'string', format: 'iban' }));
    expect(result.bump).toBe('patch');
    expect(only(result, 'annotation-changed').message).toContain('not a format the validator checks');
    const checked = expectMajorWithWitness(one({ type: 'string' }), one({ type: 'string', format: 'email' }), 'format-added');
    expect(only(checked, 'format-added').message).toContain('the validator checks this format');
    expectMajorWithWitness(one({ type: 'string', format: 'iban' }), one({ type: 'string', format: 'email' }), 'format-added');
  });
});
