import { classifyMessage, type MessageClassification } from './json-rpc-message.classifier';

const request = (extra: Record<string, unknown>): Record<string, unknown> => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/list',
  ...extra,
});

function expectInvalid(result: MessageClassification, message: string, id: string | number | null = null): void {
  expect(result).toEqual({
    kind: 'invalid',
    id,
    error: { code: -32600, message },
    shape: expect.any(String),
  });
}

describe('classifyMessage — requests and ids', () => {
  it('accepts a request with an integer id', () => {
    expect(classifyMessage(request({ id: 7 }))).toEqual({
      kind: 'request',
      message: { jsonrpc: '2.0', id: 7, method: 'tools/list' },
    });
  });

  it('accepts a request with a string id', () => {
    expect(classifyMessage(request({ id: 'req-7' }))).toEqual({
      kind: 'request',
      message: { jsonrpc: '2.0', id: 'req-7', method: 'tools/list' },
    });
  });

  it.each([[0], [-12], [Number.MAX_SAFE_INTEGER]])('accepts the integer id %p', (id) => {
    expect(classifyMessage(request({ id })).kind).toBe('request');
  });

  it('accepts an empty string id', () => {
    expect(classifyMessage(request({ id: '' })).kind).toBe('request');
  });

  it('refuses a float id and says it was a float', () => {
    expectInvalid(
      classifyMessage(request({ id: 1.5 })),
      'Invalid Request: id must be a string or an integer, got float',
    );
  });

  it('refuses a null id on a request', () => {
    expectInvalid(classifyMessage(request({ id: null })), 'Invalid Request: id must be a string or an integer, got null');
  });

  it.each([
    ['boolean', true],
    ['array', [1]],
    ['object', { n: 1 }],
  ])('refuses a %s id', (type, id) => {
    expectInvalid(classifyMessage(request({ id })), `Invalid Request: id must be a string or an integer, got ${type}`);
  });

  it('refuses an integer id beyond the safe range, which could not be echoed exactly', () => {
    const result = classifyMessage(request({ id: 2 ** 60 }));
    expect(result.kind).toBe('invalid');
    expect(result.kind === 'invalid' && result.error.message).toMatch(/got integer beyond the safe range/);
  });

  it('keeps the request shape on an id refusal so the edge knows it was a request', () => {
    expect(classifyMessage(request({ id: 2.5 }))).toMatchObject({ kind: 'invalid', shape: 'request', id: null });
  });

  it('copies only the envelope members and drops stray top-level ones', () => {
    expect(classifyMessage(request({ params: { cursor: 'c' }, extra: 'x' }))).toEqual({
      kind: 'request',
      message: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { cursor: 'c' } },
    });
  });
});

describe('classifyMessage — jsonrpc, method and params', () => {
  it('refuses jsonrpc "1.0" and reports the valid id back', () => {
    expectInvalid(classifyMessage(request({ jsonrpc: '1.0', id: 9 })), 'Invalid Request: jsonrpc must be "2.0", got "1.0"', 9);
  });

  it('refuses a missing jsonrpc member', () => {
    const { jsonrpc: _omit, ...withoutVersion } = request({ id: 'a' });
    expectInvalid(
      classifyMessage(withoutVersion),
      'Invalid Request: jsonrpc must be "2.0", got nothing (member missing)',
      'a',
    );
  });

  it('refuses jsonrpc given as the number 2.0', () => {
    expectInvalid(classifyMessage(request({ jsonrpc: 2 })), 'Invalid Request: jsonrpc must be "2.0", got integer', 1);
  });

  it.each([
    ['integer', 5],
    ['null', null],
    ['object', { name: 'x' }],
  ])('refuses a method that is a %s and reports the id back', (type, method) => {
    expectInvalid(classifyMessage(request({ method, id: 3 })), `Invalid Request: method must be a string, got ${type}`, 3);
  });

  it('refuses an empty method name', () => {
    expectInvalid(classifyMessage(request({ method: '' })), 'Invalid Request: method must not be empty', 1);
  });

  it('refuses params given as an array, because MCP uses named params only', () => {
    expectInvalid(
      classifyMessage(request({ params: [1, 2] })),
      'Invalid Request: params must be an object when present (MCP uses named params only), got array',
      1,
    );
  });

  it.each([
    ['string', 'bar'],
    ['null', null],
    ['integer', 3],
  ])('refuses params given as %s', (type, params) => {
    const result = classifyMessage(request({ params }));
    expect(result.kind === 'invalid' && result.error.message).toMatch(new RegExp(`got ${type}$`));
  });

  it('accepts an empty params object', () => {
    expect(classifyMessage(request({ params: {} }))).toMatchObject({ kind: 'request', message: { params: {} } });
  });

  it('shortens a huge jsonrpc value instead of echoing all of it', () => {
    const result = classifyMessage(request({ jsonrpc: 'x'.repeat(10_000) }));
    expect(result.kind === 'invalid' && result.error.message.length).toBeLessThan(200);
  });
});

describe('classifyMessage — notifications', () => {
  it('recognises a message without id as a notification', () => {
    expect(classifyMessage({ jsonrpc: '2.0', method: 'notifications/initialized' })).toEqual({
      kind: 'notification',
      message: { jsonrpc: '2.0', method: 'notifications/initialized' },
    });
  });

  it('keeps notification params', () => {
    const value = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 3 } };
    expect(classifyMessage(value)).toEqual({ kind: 'notification', message: value });
  });

  it('marks a notification with garbage params as an invalid notification, not a request', () => {
    expect(classifyMessage({ jsonrpc: '2.0', method: 'x', params: 'garbage' })).toMatchObject({
      kind: 'invalid',
      shape: 'notification',
      id: null,
    });
  });

  it('treats an id explicitly set to null as a (refused) request, not a notification', () => {
    expect(classifyMessage({ jsonrpc: '2.0', id: null, method: 'ping' })).toMatchObject({
      kind: 'invalid',
      shape: 'request',
    });
  });

  it('treats a non-string method without id as an unknown shape, answered like JSON-RPC does', () => {
    expect(classifyMessage({ jsonrpc: '2.0', method: 1, params: 'bar' })).toMatchObject({
      kind: 'invalid',
      shape: 'unknown',
      error: { message: 'Invalid Request: method must be a string, got integer' },
    });
  });
});

describe('classifyMessage — responses', () => {
  it('accepts a success response', () => {
    expect(classifyMessage({ jsonrpc: '2.0', id: 2, result: { content: [] } })).toEqual({
      kind: 'response',
      message: { jsonrpc: '2.0', id: 2, result: { content: [] } },
    });
  });

  it('accepts a null result', () => {
    expect(classifyMessage({ jsonrpc: '2.0', id: 2, result: null }).kind).toBe('response');
  });

  it('accepts an error response and keeps its data', () => {
    const value = { jsonrpc: '2.0', id: 'k', error: { code: -32602, message: 'bad', data: [1] } };
    expect(classifyMessage(value)).toEqual({ kind: 'response', message: value });
  });

  it('accepts an error response with a null or missing id', () => {
    const error = { code: -32700, message: 'Parse error' };
    expect(classifyMessage({ jsonrpc: '2.0', id: null, error })).toEqual({
      kind: 'response',
      message: { jsonrpc: '2.0', id: null, error },
    });
    expect(classifyMessage({ jsonrpc: '2.0', error })).toMatchObject({ kind: 'response', message: { id: null } });
  });

  it('refuses a response carrying both result and error', () => {
    const result = classifyMessage({ jsonrpc: '2.0', id: 4, result: {}, error: { code: 1, message: 'x' } });
    expectInvalid(result, 'Invalid Request: a response must carry exactly one of result and error, got both', 4);
    expect(result).toMatchObject({ shape: 'response' });
  });

  it('refuses a message with an id but neither result, error nor method', () => {
    expectInvalid(
      classifyMessage({ jsonrpc: '2.0', id: 4 }),
      'Invalid Request: the message has neither a method (request or notification) nor a result or error (response)',
      4,
    );
  });

  it('refuses a success response with a float id', () => {
    expectInvalid(
      classifyMessage({ jsonrpc: '2.0', id: 1.25, result: {} }),
      'Invalid Request: id must be a string or an integer, got float',
    );
  });

  it('refuses a success response without an id', () => {
    const result = classifyMessage({ jsonrpc: '2.0', result: {} });
    expect(result.kind === 'invalid' && result.error.message).toBe(
      'Invalid Request: id must be a string or an integer, got nothing (member missing)',
    );
  });

  it.each([
    [{ jsonrpc: '2.0', id: 1, error: 'boom' }, 'error must be an object, got string'],
    [{ jsonrpc: '2.0', id: 1, error: null }, 'error must be an object, got null'],
    [{ jsonrpc: '2.0', id: 1, error: { code: 1.5, message: 'x' } }, 'error.code must be an integer, got float'],
    [{ jsonrpc: '2.0', id: 1, error: { code: 1 } }, 'error.message must be a string, got nothing (member missing)'],
    [{ jsonrpc: '2.0', id: true, error: { code: 1, message: 'x' } }, 'id must be a string, an integer or null in an error response, got boolean'],
  ])('refuses a malformed error response %#', (value, reason) => {
    const result = classifyMessage(value);
    expect(result.kind === 'invalid' && result.error.message).toBe(`Invalid Request: ${reason}`);
  });
});

describe('classifyMessage — non-objects and batches', () => {
  it.each([
    ['string', 'hello'],
    ['integer', 42],
    ['null', null],
    ['boolean', false],
  ])('refuses a bare %s', (type, value) => {
    expectInvalid(classifyMessage(value), `Invalid Request: a message must be a JSON object, got ${type}`);
  });

  it('refuses an empty batch', () => {
    expectInvalid(classifyMessage([]), 'Invalid Request: an empty batch is not a message; a batch needs at least one item');
  });

  it('recognises a non-empty array as a batch and leaves its items unjudged', () => {
    const items = [request({ id: 1 }), 7];
    expect(classifyMessage(items)).toEqual({ kind: 'batch', items });
  });
});
