import fc from 'fast-check';
import { repair } from './repair';

const transfer = {
  type: 'object',
  required: ['reference', 'amount'],
  additionalProperties: false,
  properties: {
    reference: { type: 'string' },
    amount: { type: 'integer' },
    rate: { type: 'number' },
    urgent: { type: 'boolean', default: false },
    channel: { type: 'string', default: 'swift' },
    memo: { type: 'string' },
    legs: { type: 'array', items: { $ref: '#/$defs/leg' } },
  },
  $defs: {
    leg: {
      type: 'object',
      additionalProperties: false,
      properties: { account: { type: 'string' }, amount: { type: 'number' }, fee: { type: 'integer', default: 0 } },
    },
  },
};

describe('repair: coercions', () => {
  it.each([
    ['"12" to integer', { amount: '12' }, 'amount', 12],
    ['"-7" to integer', { amount: '-7' }, 'amount', -7],
    ['"12.5" to number', { rate: '12.5' }, 'rate', 12.5],
    ['"3" to number', { rate: '3' }, 'rate', 3],
    ['"true" to boolean', { urgent: 'true' }, 'urgent', true],
    ['"false" to boolean', { urgent: 'false' }, 'urgent', false],
    ['a safe integer to string', { reference: 771 }, 'reference', '771'],
  ])('coerces %s', (_label, input, key, expected) => {
    const { value, changes } = repair(transfer, input);
    expect((value as Record<string, unknown>)[key]).toBe(expected);
    expect(changes).toContainEqual({ path: `$.${key}`, kind: 'coerced', from: (input as Record<string, unknown>)[key], to: expected });
  });

  it.each(['12.5', ' 12', '12 ', '1e3', '0x10', '012', '', '+12', '-0', '99999999999999999999'])(
    'leaves the ambiguous integer string %j alone',
    (text) => {
      const { value, changes } = repair(transfer, { amount: text });
      expect((value as Record<string, unknown>).amount).toBe(text);
      expect(changes.filter((c) => c.path === '$.amount')).toEqual([]);
    },
  );

  it.each(['1.', '.5', '1e3', 'NaN', 'Infinity', '1,5', '0.12345678901234567'])('leaves the number string %j alone', (text) => {
    expect((repair(transfer, { rate: text }).value as Record<string, unknown>).rate).toBe(text);
  });

  // Their digits as sent are lost in parsing (12345678901234567890 arrives as …67000, 1.10 as 1.1); a boolean names no text.
  it.each([[12345678901234567890], [1.1], [-0], [true], [false]])('leaves %j alone where a string is expected', (sent) => {
    const { value, changes } = repair(transfer, { reference: sent });
    expect((value as Record<string, unknown>).reference).toBe(sent);
    expect(changes.filter((c) => c.path === '$.reference')).toEqual([]);
  });

  it.each(['True', 'yes', '1', ' true'])('leaves %j alone where a boolean is expected', (text) => {
    expect((repair(transfer, { urgent: text }).value as Record<string, unknown>).urgent).toBe(text);
  });

  it('does not coerce a value that already has an allowed type', () => {
    const schema = { type: 'object', properties: { id: { type: ['string', 'integer'] } } };
    expect(repair(schema, { id: '12' })).toEqual({ value: { id: '12' }, changes: [] });
  });

  it('does not coerce null or objects', () => {
    expect(repair(transfer, { amount: null, memo: { a: 1 } }).changes.filter((c) => c.kind === 'coerced')).toEqual([]);
  });
});

describe('repair: drops and defaults', () => {
  it('drops properties that additionalProperties: false forbids', () => {
    const { value, changes } = repair(transfer, { reference: 'PMT-1', amount: 1, note: 'x' });
    expect(value).not.toHaveProperty('note');
    expect(changes).toContainEqual({ path: '$.note', kind: 'dropped', from: 'x' });
  });

  it('keeps properties that a patternProperties entry matches', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } }, patternProperties: { '^x-': {} }, additionalProperties: false };
    expect(repair(schema, { 'x-trace': 1, b: 2 })).toEqual({
      value: { 'x-trace': 1 },
      changes: [{ path: '$.b', kind: 'dropped', from: 2 }],
    });
  });

  it('does not drop when the schema lists no properties', () => {
    expect(repair({ type: 'object', additionalProperties: false }, { a: 1 }).value).toEqual({ a: 1 });
  });

  it('fills declared defaults for missing properties', () => {
    const { value, changes } = repair(transfer, { reference: 'PMT-1', amount: 1 });
    expect(value).toEqual({ reference: 'PMT-1', amount: 1, urgent: false, channel: 'swift' });
    expect(changes).toEqual([
      { path: '$.channel', kind: 'defaulted', to: 'swift' },
      { path: '$.urgent', kind: 'defaulted', to: false },
    ]);
  });

  it('never invents a value that has no default', () => {
    const { value } = repair(transfer, {});
    expect(value).not.toHaveProperty('reference');
    expect(value).not.toHaveProperty('amount');
  });

  it('walks arrays through a local $ref into $defs', () => {
    const { value, changes } = repair(transfer, { legs: [{ account: 'A', amount: '1.5', x: 1 }] });
    expect((value as { legs: unknown[] }).legs).toEqual([{ account: 'A', amount: 1.5, fee: 0 }]);
    expect(changes.filter((c) => c.path.startsWith('$.legs')).map((c) => `${c.path} ${c.kind}`)).toEqual([
      '$.legs[0].amount coerced',
      '$.legs[0].fee defaulted',
      '$.legs[0].x dropped',
    ]);
  });

  it('follows draft-07 tuple items and definitions', () => {
    const schema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      definitions: { n: { type: 'integer' } },
      type: 'array',
      items: [{ $ref: '#/definitions/n' }, { type: 'boolean' }],
    };
    expect(repair(schema, ['4', 'true', '5']).value).toEqual([4, true, '5']);
  });

  it('follows 2020-12 prefixItems then items', () => {
    const schema = { type: 'array', prefixItems: [{ type: 'string' }], items: { type: 'integer' } };
    expect(repair(schema, [1, '2', '3']).value).toEqual(['1', 2, 3]);
  });

  it('repairs a default that itself has nested defaults in one pass', () => {
    const schema = { type: 'object', properties: { opts: { type: 'object', default: {}, properties: { retries: { type: 'integer', default: 2 } } } } };
    const once = repair(schema, {});
    expect(once.value).toEqual({ opts: { retries: 2 } });
    expect(repair(schema, once.value).changes).toEqual([]);
  });

  it('survives a recursive default without looping', () => {
    const schema = { $defs: { node: { type: 'object', default: {}, properties: { next: { $ref: '#/$defs/node' } } } }, $ref: '#/$defs/node' };
    expect(() => repair(schema, {})).not.toThrow();
  });
});

describe('repair: guarantees', () => {
  it('sorts changes by path', () => {
    const { changes } = repair(transfer, { zeta: 1, amount: '3', legs: [{}, { amount: '2' }], alpha: 2 });
    const paths = changes.map((c) => c.path);
    expect(paths).toEqual(['$.alpha', '$.amount', '$.channel', '$.legs[0].fee', '$.legs[1].amount', '$.legs[1].fee', '$.urgent', '$.zeta']);
  });

  it('never mutates its input', () => {
    const input = { amount: '3', note: 'x', legs: [{ amount: '2' }] };
    const snapshot = structuredClone(input);
    repair(transfer, input);
    expect(input).toEqual(snapshot);
  });

  it('returns a fresh structure (no shared objects with the input)', () => {
    const input = { legs: [{ account: 'A' }] };
    const { value } = repair(transfer, input) as { value: { legs: object[] } };
    expect(value.legs).not.toBe(input.legs);
    expect(value.legs[0]).not.toBe(input.legs[0]);
  });

  it('never lets a __proto__ key reach a prototype', () => {
    const input = JSON.parse('{"__proto__": {"polluted": true}, "amount": "1"}') as unknown;
    const { value } = repair({ type: 'object', properties: { amount: { type: 'integer' } } }, input);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('is idempotent on a sample', () => {
    const once = repair(transfer, { amount: '3', rate: '1.25', urgent: 'true', extra: 1, legs: [{ amount: '2', y: 0 }] });
    expect(repair(transfer, once.value)).toEqual({ value: once.value, changes: [] });
  });

  it('is idempotent on random values (property)', () => {
    const scalar = fc.oneof(
      fc.constantFrom('12', '-3', '1.5', '12.5', ' 7', 'true', 'false', 'x', '', '1e3'),
      fc.integer(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.boolean(),
      fc.constant(null),
    );
    const leg = fc.dictionary(fc.constantFrom('account', 'amount', 'fee', 'x'), scalar);
    const value = fc.oneof(
      fc.record(
        {
          reference: scalar,
          amount: scalar,
          rate: scalar,
          urgent: scalar,
          channel: scalar,
          memo: scalar,
          legs: fc.array(fc.oneof(leg, scalar), { maxLength: 4 }),
          extra: fc.jsonValue(),
        },
        { requiredKeys: [] },
      ),
      fc.jsonValue(),
    );
    fc.assert(
      fc.property(value, (input) => {
        const once = repair(transfer, input);
        const twice = repair(transfer, once.value);
        expect(twice.changes).toEqual([]);
        expect(twice.value).toEqual(once.value);
      }),
      { numRuns: 300 },
    );
  });
});
