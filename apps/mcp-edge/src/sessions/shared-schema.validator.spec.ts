import { SharedSchemaValidator } from './shared-schema.validator';

describe('SharedSchemaValidator (one Ajv for every session server)', () => {
  it('accepts what fits the schema and words a misfit as the SDK validator does', () => {
    const validator = new SharedSchemaValidator();
    const check = validator.getValidator<{ ok: boolean }>({ type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] });
    expect(check({ ok: true })).toEqual({ valid: true, data: { ok: true }, errorMessage: undefined });
    expect(check({ ok: 'yes' })).toEqual({ valid: false, data: undefined, errorMessage: 'data/ok must be boolean' });
    expect(check({})).toMatchObject({ valid: false, errorMessage: "data must have required property 'ok'" });
  });

  it('judges each schema by itself, even when two upstreams chose the same $id', () => {
    const validator = new SharedSchemaValidator();
    const first = validator.getValidator({ $id: 'https://example.com/answer.json', type: 'object', properties: { n: { type: 'number' } } });
    const second = validator.getValidator({ $id: 'https://example.com/answer.json', type: 'object', properties: { n: { type: 'string' } } });
    expect(first({ n: 1 }).valid).toBe(true);
    expect(second({ n: 1 }).valid).toBe(false);
    expect(second({ n: 'one' }).valid).toBe(true);
  });

  it('checks formats, as the SDK validator does', () => {
    const check = new SharedSchemaValidator().getValidator({ type: 'string', format: 'email' });
    expect(check('someone@example.com').valid).toBe(true);
    expect(check('not an address').valid).toBe(false);
  });

  it('judges only the members a value has: an inherited constructor is neither an answer nor a wrong one', () => {
    const optional = new SharedSchemaValidator().getValidator({ type: 'object', properties: { constructor: { type: 'string' } } });
    expect(optional({}).valid).toBe(true);
    expect(optional({ constructor: 'x' }).valid).toBe(true);
    const required = new SharedSchemaValidator().getValidator({ type: 'object', properties: { toString: {} }, required: ['toString'] });
    expect(required({}).valid).toBe(false);
  });
});
