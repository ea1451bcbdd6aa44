import Ajv from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import { classifySchemaChange } from './schema-change.classifier';

const ajv2020 = new Ajv2020({ strict: false });
const ajv07 = new Ajv({ strict: false });
const accepts = (schema: Record<string, unknown>, value: unknown) =>
  ((schema.$schema === 'http://json-schema.org/draft-07/schema#' ? ajv07 : ajv2020).validate(schema, value)) as boolean;

type Schema = Record<string, unknown>;

function expectProvenMajor(before: Schema, after: Schema, path: string): void {
  const result = classifySchemaChange(before, after);
  expect(result.bump).toBe('major');
  expect(result.changes.map((c) => c.path)).toContain(path);
  expect(accepts(before, result.witness)).toBe(true);
  expect(accepts(after, result.witness)).toBe(false);
}

const order = (line: Schema): Schema => ({
  type: 'object',
  properties: { payer: { type: 'object', properties: { iban: { type: 'string' } }, required: ['iban'] }, lines: { type: 'array', items: line } },
  required: ['payer', 'lines'],
});

describe('recursion', () => {
  it('finds a change in a nested property and places the witness there', () => {
    const after = order({ type: 'object' });
    (after.properties as Schema).payer = { type: 'object', properties: { iban: { type: 'string', maxLength: 0 } }, required: ['iban'] };
    expectProvenMajor(order({ type: 'object' }), after, '$.properties.payer.properties.iban.maxLength');
  });

  it('finds a change in array items', () => {
    const before = order({ type: 'object', properties: { qty: { type: 'integer' } } });
    const after = order({ type: 'object', properties: { qty: { type: 'integer' } }, required: ['qty'] });
    expectProvenMajor(before, after, '$.properties.lines.items.required');
  });

  it('compares prefixItems position by position', () => {
    const before = { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }] };
    const after = { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer', minimum: 5 }] };
    expectProvenMajor(before, after, '$.prefixItems[1].minimum');
  });

  it('reads draft-07 tuple items and definitions', () => {
    const draft = 'http://json-schema.org/draft-07/schema#';
    const before = { $schema: draft, definitions: { n: { type: 'integer' } }, type: 'array', items: [{ $ref: '#/definitions/n' }] };
    const after = { ...before, definitions: { n: { type: 'integer', maximum: 0 } } };
    expectProvenMajor(before, after, '$.items[0].maximum');
  });

  // A shared definition is compared once, and reported at the first place the walk meets it.
  it('follows $ref into $defs and reports the path the instance sees', () => {
    const make = (iban: Schema) => ({
      $defs: { party: { type: 'object', properties: { iban }, required: ['iban'] } },
      type: 'object',
      properties: { payer: { $ref: '#/$defs/party' }, payee: { $ref: '#/$defs/party' } },
      required: ['payer'],
    });
    expectProvenMajor(make({ type: 'string' }), make({ type: 'string', pattern: '^GB' }), '$.properties.payee.properties.iban.pattern');
    expect(classifySchemaChange(make({ type: 'string', pattern: '^GB' }), make({ type: 'string' })).bump).toBe('minor');
  });

  it('guards against recursive schemas', () => {
    const tree = (leaf: Schema) => ({
      $defs: { node: { type: 'object', properties: { value: leaf, children: { type: 'array', items: { $ref: '#/$defs/node' } } } } },
      $ref: '#/$defs/node',
    });
    expectProvenMajor(tree({ type: 'number' }), tree({ type: 'integer' }), '$.properties.value.type');
    expect(classifySchemaChange(tree({ type: 'integer' }), tree({ type: 'number' })).bump).toBe('minor');
  });
});

describe('conservative composition', () => {
  const branches = [{ type: 'string' }, { type: 'integer' }];
  it('identical composition is none', () => {
    expect(classifySchemaChange({ oneOf: branches }, { oneOf: [...branches] }).bump).toBe('none');
  });
  it('adding an anyOf branch is minor; removing one is major', () => {
    expect(classifySchemaChange({ anyOf: branches }, { anyOf: [...branches, { type: 'null' }] }).bump).toBe('minor');
    expectProvenMajor({ anyOf: branches }, { anyOf: [branches[0]] }, '$.anyOf');
  });
  it('any change under oneOf, not or if is major with a reason', () => {
    const cases: Array<[Schema, Schema]> = [
      [{ oneOf: branches }, { oneOf: [{ type: 'string' }, { type: 'number' }] }],
      [{ not: { type: 'string', maxLength: 3 } }, { not: { type: 'string', maxLength: 4 } }],
      [{ if: { type: 'string' }, then: { minLength: 1 } }, { if: { type: 'string', maxLength: 9 }, then: { minLength: 1 } }],
    ];
    for (const [before, after] of cases) {
      const result = classifySchemaChange(before, after);
      expect(result.bump).toBe('major');
      expect(result.changes.find((c) => c.kind === 'composition-changed')?.message).toMatch(/cannot be proven/);
    }
  });
  it('changes in allOf or anyOf members keep their direction (both are monotone)', () => {
    expect(classifySchemaChange({ allOf: [{ type: 'integer', minimum: 1 }] }, { allOf: [{ type: 'integer', minimum: 0 }] }).bump).toBe('minor');
    expectProvenMajor({ anyOf: [{ type: 'integer', minimum: 0 }] }, { anyOf: [{ type: 'integer', minimum: 1 }] }, '$.anyOf[0].minimum');
  });
  it('an annotation change inside oneOf stays patch', () => {
    expect(classifySchemaChange({ oneOf: branches }, { oneOf: [{ type: 'string', title: 'text' }, branches[1]] }).bump).toBe('patch');
  });
  it('a composition keyword added is major, removed is minor', () => {
    expect(classifySchemaChange({ type: 'string' }, { type: 'string', not: { const: '' } }).bump).toBe('major');
    expect(classifySchemaChange({ type: 'string', not: { const: '' } }, { type: 'string' }).bump).toBe('minor');
  });
});

describe('scale', () => {
  it('classifies a 200-property schema pair', () => {
    const props: Schema = {};
    for (let i = 0; i < 200; i += 1) props[`field${i}`] = { type: i % 2 ? 'string' : 'integer', description: `field ${i}`, ...(i % 2 ? { maxLength: 40 } : { minimum: 0 }) };
    const before = { type: 'object', properties: props, required: Object.keys(props).slice(0, 100), additionalProperties: false };
    const changed: Schema = { ...props, field7: { type: 'string', maxLength: 20 }, field8: { type: 'integer', minimum: 1 } };
    const result = classifySchemaChange(before, { ...before, properties: changed });
    expect(result.bump).toBe('major');
    expect(result.changes.length).toBeGreaterThanOrEqual(2);
    expect(accepts(before, result.witness)).toBe(true);
  });
});
