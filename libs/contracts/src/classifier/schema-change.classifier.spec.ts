import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { DESCRIPTION_CHANGE_BUMP, classifySchemaChange } from './schema-change.classifier';
import type { ChangeClassification } from './schema-change.classifier';

const ajv = new Ajv2020({ strict: false, allErrors: true });
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
    const result = classifySchemaChange(payment(), payment({}, { amount: { type: 'number', minimum: 0, maximum: 1000, ...extra } }));
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
