import { validate } from './schema.validator';

/** The remembered translation must answer exactly what a first translation answers. */
describe('validate(): repeated mistakes get the same precise errors', () => {
  const schema = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: {
      amount: { type: 'number', minimum: 1 },
      legs: { type: 'array', items: { type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'] } },
      tags: { type: 'object', additionalProperties: { type: 'string' } },
    },
    additionalProperties: false,
  };

  it('answers a repeated invalid value identically every time, with copies the caller may change', () => {
    const value = { amount: 0, extra: true };
    const first = validate(schema, value);
    expect(first).toEqual({
      valid: false,
      errors: [
        { path: '$.amount', keyword: 'minimum', message: 'must be >= 1' },
        { path: '$.extra', keyword: 'additionalProperties', message: 'is not an allowed property' },
      ],
    });
    if (first.valid) return;
    first.errors[0].message = 'changed by the caller';
    expect(validate(schema, value)).toEqual({
      valid: false,
      errors: [
        { path: '$.amount', keyword: 'minimum', message: 'must be >= 1' },
        { path: '$.extra', keyword: 'additionalProperties', message: 'is not an allowed property' },
      ],
    });
  });

  it('tells apart values whose errors differ only in what the value holds', () => {
    expect(validate(schema, { amount: 'ten' })).toEqual({ valid: false, errors: [{ path: '$.amount', keyword: 'type', message: 'must be number, got string' }] });
    expect(validate(schema, { amount: true })).toEqual({ valid: false, errors: [{ path: '$.amount', keyword: 'type', message: 'must be number, got boolean' }] });
    expect(validate(schema, { other: 1 })).toEqual({ valid: false, errors: [{ path: '$.other', keyword: 'additionalProperties', message: 'is not an allowed property' }] });
    expect(validate(schema, { another: 1 })).toEqual({ valid: false, errors: [{ path: '$.another', keyword: 'additionalProperties', message: 'is not an allowed property' }] });
  });

  it('reads an index as an index only inside an array, every time', () => {
    expect(validate(schema, { legs: [{}, { amount: 'x' }] })).toEqual({
      valid: false,
      errors: [
        { path: '$.legs[0].amount', keyword: 'required', message: 'is required' },
        { path: '$.legs[1].amount', keyword: 'type', message: 'must be number, got string' },
      ],
    });
    expect(validate(schema, { tags: { 0: 1 } })).toEqual({ valid: false, errors: [{ path: '$.tags["0"]', keyword: 'type', message: 'must be string, got integer' }] });
    expect(validate(schema, { tags: { 0: null } })).toEqual({ valid: false, errors: [{ path: '$.tags["0"]', keyword: 'type', message: 'must be string, got null' }] });
  });
});
