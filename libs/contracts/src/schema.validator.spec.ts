import { checkSchemaDialect } from './schema-dialect.policy';
import { checkSchema, compileValidator, validate } from './schema.validator';

const payment = {
  type: 'object',
  required: ['reference', 'amount', 'legs'],
  additionalProperties: false,
  properties: {
    reference: { type: 'string', pattern: '^PMT-\\d+$' },
    amount: { type: 'integer', minimum: 1 },
    currency: { type: 'string', enum: ['EUR', 'USD'] },
    legs: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['account', 'amount'],
        properties: { account: { type: 'string', minLength: 8 }, amount: { type: 'number', exclusiveMinimum: 0 } },
      },
    },
  },
};

function errorsOf(schema: Record<string, unknown> | boolean, value: unknown) {
  const result = validate(schema, value);
  return result.valid ? [] : result.errors;
}

describe('validate', () => {
  it('accepts a value that meets the schema', () => {
    const value = { reference: 'PMT-771', amount: 5, legs: [{ account: '12345678', amount: 5 }] };
    expect(validate(payment, value)).toEqual({ valid: true });
  });

  it('refuses amount: true against integer', () => {
    expect(errorsOf({ type: 'object', properties: { amount: { type: 'integer' } } }, { amount: true })).toEqual([
      { path: '$.amount', keyword: 'type', message: 'must be integer, got boolean' },
    ]);
  });

  it('refuses amount: true against number', () => {
    expect(errorsOf({ type: 'object', properties: { amount: { type: 'number' } } }, { amount: true })).toEqual([
      { path: '$.amount', keyword: 'type', message: 'must be number, got boolean' },
    ]);
  });

  it('accepts an integer as a number but not a fraction as an integer', () => {
    expect(validate({ type: 'number' }, 5)).toEqual({ valid: true });
    expect(errorsOf({ type: 'integer' }, 5.5).map((e) => e.keyword)).toEqual(['type']);
  });

  it('reports only the type error when a string meets an integer with a minimum', () => {
    const schema = { type: 'object', properties: { amount: { type: 'integer', minimum: 1 } } };
    expect(errorsOf(schema, { amount: 'x' })).toEqual([
      { path: '$.amount', keyword: 'type', message: 'must be integer, got string' },
    ]);
  });

  it('lets a type error suppress the bound error on the same value', () => {
    const schema = { type: 'object', properties: { amount: { type: 'integer', minimum: 1 } } };
    expect(errorsOf(schema, { amount: 0.5 }).map((e) => e.keyword)).toEqual(['type']);
  });

  it('suppresses everything below a value of the wrong type', () => {
    expect(errorsOf(payment, { reference: 'PMT-1', amount: 3, legs: 'none' })).toEqual([
      { path: '$.legs', keyword: 'type', message: 'must be array, got string' },
    ]);
  });

  it('returns every error of a payment-like value, sorted by path then keyword', () => {
    const value = {
      amount: 0,
      currency: 'GBP',
      memo: 'hi',
      legs: [{ account: '12345678', amount: 1 }, { account: 'short', amount: -1 }, { amount: 'x' }],
    };
    expect(errorsOf(payment, value).map((e) => `${e.path} ${e.keyword}`)).toEqual([
      '$.amount minimum',
      '$.currency enum',
      '$.legs[1].account minLength',
      '$.legs[1].amount exclusiveMinimum',
      '$.legs[2].account required',
      '$.legs[2].amount type',
      '$.memo additionalProperties',
      '$.reference required',
    ]);
  });

  it('orders array indices numerically', () => {
    const schema = { type: 'array', items: { type: 'string' } };
    const value = Array.from({ length: 12 }, (_, i) => (i === 2 || i === 10 ? 1 : 'ok'));
    expect(errorsOf(schema, value).map((e) => e.path)).toEqual(['$[2]', '$[10]']);
  });

  it('puts missing and additional properties in the path, quoting keys that are not identifiers', () => {
    const schema = { type: 'object', required: ['odd key'], properties: { a: { type: 'string' } }, additionalProperties: false };
    expect(errorsOf(schema, { 'x-y': 1 })).toEqual([
      { path: '$["odd key"]', keyword: 'required', message: 'is required' },
      { path: '$["x-y"]', keyword: 'additionalProperties', message: 'is not an allowed property' },
    ]);
  });

  it('treats a numeric key of an object as a property, not an index', () => {
    const schema = { type: 'object', properties: { '1': { type: 'string' } } };
    expect(errorsOf(schema, { '1': 2 }).map((e) => e.path)).toEqual(['$["1"]']);
  });

  it('folds failed anyOf branches into the anyOf error', () => {
    const schema = { anyOf: [{ type: 'string' }, { type: 'integer', minimum: 3 }] };
    expect(errorsOf(schema, 1.5).map((e) => e.keyword)).toEqual(['anyOf']);
  });

  it('is deterministic for the same input', () => {
    const value = { amount: 'x', legs: [{}, {}], extra: true };
    expect(errorsOf(payment, value)).toEqual(errorsOf(payment, value));
  });
});

describe('dialects', () => {
  it('honours 2020-12 prefixItems when no $schema is declared', () => {
    const schema = { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }] };
    expect(errorsOf(schema, ['a', 'b']).map((e) => e.path)).toEqual(['$[1]']);
  });

  it('honours 2020-12 $defs', () => {
    const schema = { $defs: { money: { type: 'integer' } }, type: 'object', properties: { amount: { $ref: '#/$defs/money' } } };
    expect(errorsOf(schema, { amount: '1' }).map((e) => e.path)).toEqual(['$.amount']);
  });

  it.each(['http://json-schema.org/draft-07/schema#', 'http://json-schema.org/draft-07/schema'])(
    'honours draft-07 items array form and definitions under %s',
    ($schema) => {
      const schema = {
        $schema,
        definitions: { code: { type: 'string' } },
        type: 'array',
        items: [{ $ref: '#/definitions/code' }, { type: 'integer' }],
      };
      expect(errorsOf(schema, [1, 'x']).map((e) => e.path)).toEqual(['$[0]', '$[1]']);
      expect(validate(schema, ['a', 2, 'anything'])).toEqual({ valid: true });
    },
  );

  it('accepts an explicit 2020-12 declaration', () => {
    expect(checkSchemaDialect({ $schema: 'https://json-schema.org/draft/2020-12/schema' })).toBeNull();
  });

  it('refuses any other $schema with a single $schema error', () => {
    const schema = { $schema: 'http://json-schema.org/draft-04/schema#', type: 'object' };
    expect(checkSchemaDialect(schema)).toMatchObject({ path: '$.$schema', code: 'unsupported_dialect' });
    const result = validate(schema, {});
    expect(result.valid).toBe(false);
    expect(result.valid ? [] : result.errors.map((e) => e.keyword)).toEqual(['$schema']);
  });

  it('reports a schema that cannot be compiled instead of throwing', () => {
    const schema = { type: 'object', properties: { a: { $ref: 'https://example.com/remote.json' } } };
    expect(checkSchema(schema)).toMatchObject({ path: '$', code: 'invalid_schema' });
    expect(errorsOf(schema, {}).map((e) => e.keyword)).toEqual(['schema']);
  });

  it('handles boolean schemas', () => {
    expect(validate(true, 42)).toEqual({ valid: true });
    expect(errorsOf(false, 42).map((e) => e.keyword)).toEqual(['false schema']);
  });

  it('checks formats', () => {
    expect(errorsOf({ type: 'string', format: 'date' }, '2024-13-45').map((e) => e.keyword)).toEqual(['format']);
  });
});

describe('compileValidator', () => {
  it('returns the same compiled function for equal schemas, whatever the key order', () => {
    const a = { type: 'object', properties: { x: { type: 'integer', minimum: 1 } }, required: ['x'] };
    const b = { required: ['x'], properties: { x: { minimum: 1, type: 'integer' } }, type: 'object' };
    expect(compileValidator(a)).toBe(compileValidator(b));
    expect(compileValidator(a)).toBe(compileValidator(structuredClone(a)));
  });

  it('returns different functions for different schemas', () => {
    expect(compileValidator({ type: 'string' })).not.toBe(compileValidator({ type: 'number' }));
  });

  it('compiles two schemas sharing an $id without a clash', () => {
    const first = compileValidator({ $id: 'https://estate.test/s', type: 'string' });
    const second = compileValidator({ $id: 'https://estate.test/s', type: 'integer' });
    expect(first('a')).toEqual({ valid: true });
    expect(second(1)).toEqual({ valid: true });
  });

  it('gives a held validator the same answers as validate', () => {
    const check = compileValidator(payment);
    const value = { amount: 'x', legs: [] };
    expect(check(value)).toEqual(validate(payment, value));
  });
});
