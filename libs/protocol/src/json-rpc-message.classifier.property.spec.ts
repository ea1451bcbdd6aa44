import fc from 'fast-check';

import { classifyMessage } from './json-rpc-message.classifier';

describe('classifyMessage — properties', () => {
  it('never throws, whatever JSON value it is given', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(() => classifyMessage(value)).not.toThrow();
      }),
    );
  });

  it('accepts every safe integer as a request id', () => {
    fc.assert(
      fc.property(fc.maxSafeInteger(), (id) => {
        expect(classifyMessage({ jsonrpc: '2.0', id, method: 'ping' }).kind).toBe('request');
      }),
    );
  });

  it('accepts every string as a request id', () => {
    fc.assert(
      fc.property(fc.string(), (id) => {
        expect(classifyMessage({ jsonrpc: '2.0', id, method: 'ping' })).toMatchObject({ kind: 'request', message: { id } });
      }),
    );
  });

  it('refuses every number with a fractional part as an id', () => {
    const fractional = fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Number.isInteger(n));
    fc.assert(
      fc.property(fractional, (id) => {
        expect(classifyMessage({ jsonrpc: '2.0', id, method: 'ping' })).toMatchObject({
          kind: 'invalid',
          id: null,
          error: { code: -32600, message: 'Invalid Request: id must be a string or an integer, got float' },
        });
      }),
    );
  });

  it('reports back every valid id of a refused request', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.maxSafeInteger()), (id) => {
        expect(classifyMessage({ jsonrpc: '1.0', id, method: 'ping' })).toMatchObject({ kind: 'invalid', id });
      }),
    );
  });
});
