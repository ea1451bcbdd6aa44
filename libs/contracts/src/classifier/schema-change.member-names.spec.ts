import type { ToolSpec } from '../tool-spec';
import { parseToolSpec } from '../tool-spec.parser';
import { validate } from '../schema.validator';
import { classifySchemaChange, classifyToolChange } from './schema-change.classifier';

/**
 * Property names that are also members of every JavaScript object (`constructor`, `toString`,
 * `valueOf`, `__proto__`) are names like any other to a JSON Schema: declared or not, required
 * or not, exactly as written.
 */

type Schema = Record<string, unknown>;
const closed = (properties: Schema): Schema => ({ type: 'object', properties: { a: { type: 'string' }, ...properties }, required: ['a'], additionalProperties: false });

const spec = (version: string, inputSchema: Schema): ToolSpec => ({
  name: 'payments.lookup',
  version,
  description: 'Return the status of a wholesale payment by its reference.',
  inputSchema,
  sideEffect: 'read',
  requiredScopes: [],
  dataClassification: 'internal',
  tenants: [],
  owner: 'payments-team',
  upstream: { server: 'payments', tool: 'lookup' },
});

/** The spec exactly as a publish reads it: raw JSON text through the parser, so `__proto__` is an own member. */
function parsedSpec(version: string, inputSchemaJson: string): ToolSpec {
  const body = JSON.parse(`{"name":"payments.lookup","version":"${version}","description":"Return a payment.","inputSchema":${inputSchemaJson},
    "sideEffect":"read","dataClassification":"internal","owner":"payments-team","upstream":{"server":"payments","tool":"lookup"}}`) as unknown;
  const parsed = parseToolSpec(body);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.error));
  return parsed.value;
}

describe('property names that are built-in object members', () => {
  it('removing `constructor` where additionalProperties is false is property-removed, major, with a witness the old contract accepts', () => {
    const before = closed({ constructor: { type: 'string' } });
    const after = closed({});
    const result = classifyToolChange(spec('1.0.0', before), spec('1.1.0', after));
    expect(result.bump).toBe('major');
    expect(result.changes.map(({ path, kind }) => ({ path, kind }))).toEqual([{ path: '$.inputSchema.properties.constructor', kind: 'property-removed' }]);
    expect(result.witness).toEqual({ a: '', constructor: '' });
    expect(validate(before, result.witness).valid).toBe(true);
    expect(validate(after, result.witness).valid).toBe(false);
  });

  it('removing `__proto__` sent as raw JSON is property-removed and major', () => {
    const before = parsedSpec('1.0.0', '{"type":"object","properties":{"a":{"type":"string"},"__proto__":{"type":"string"}},"required":["a"],"additionalProperties":false}');
    const after = parsedSpec('1.1.0', '{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false}');
    const result = classifyToolChange(before, after);
    expect(result.bump).toBe('major');
    expect(result.changes.map(({ path, kind }) => ({ path, kind }))).toEqual([{ path: '$.inputSchema.properties.__proto__', kind: 'property-removed' }]);
  });

  it('keeps a `__proto__` property of a parsed spec as data, not as the prototype', () => {
    const parsed = parsedSpec('1.0.0', '{"type":"object","properties":{"__proto__":{"type":"string"}}}');
    const properties = parsed.inputSchema.properties as Schema;
    expect(Object.keys(properties)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(properties)).toBe(Object.prototype);
    expect(JSON.parse(JSON.stringify(parsed.inputSchema))).toEqual(parsed.inputSchema);
  });

  it.each(['toString', 'valueOf', 'constructor', '__proto__'])('adding an optional `%s` is property-added-optional, minor', (name) => {
    const after = JSON.parse(`{"type":"object","properties":{"a":{"type":"string"},${JSON.stringify(name)}:{"type":"string"}},"required":["a"],"additionalProperties":false}`) as Schema;
    const result = classifySchemaChange(closed({}), after);
    expect(result.bump).toBe('minor');
    expect(result.changes.map(({ path, kind }) => ({ path, kind }))).toEqual([{ path: `$.properties.${name}`, kind: 'property-added-optional' }]);
  });

  it('an unknown keyword named `constructor` is an annotation, a patch', () => {
    const result = classifySchemaChange({ ...closed({}), constructor: 'x' }, closed({}));
    expect(result.bump).toBe('patch');
    expect(result.changes.map(({ path, kind, message }) => ({ path, kind, message }))).toEqual([
      { path: '$.constructor', kind: 'annotation-changed', message: 'constructor changed from "x" to absent' },
    ]);
  });

  it('a format named `toString` finds a witness instead of failing', () => {
    const before = closed({ b: { type: 'string', format: 'toString' } });
    const after = closed({ b: { type: 'string', format: 'toString', maxLength: 0 } });
    const result = classifySchemaChange(before, after);
    expect(result.bump).toBe('major');
    expect(validate(before, result.witness).valid).toBe(true);
    expect(validate(after, result.witness).valid).toBe(false);
  });
});

describe('validating values against such names', () => {
  it('reads only the members a value holds: an optional `constructor` is not sent by {}, a required `toString` is missing', () => {
    expect(validate(closed({ constructor: { type: 'string' } }), { a: '' })).toEqual({ valid: true });
    expect(validate({ type: 'object', required: ['toString'] }, {})).toEqual({
      valid: false,
      errors: [{ path: '$.toString', keyword: 'required', message: 'is required' }],
    });
  });
});
