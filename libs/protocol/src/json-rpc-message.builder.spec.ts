import {
  invalidRequestError,
  makeError,
  makeNotification,
  makeRequest,
  makeResult,
  toErrorResponse,
} from './json-rpc-message.builder';
import { JSON_RPC_ERROR } from './json-rpc.types';

describe('JSON-RPC message builders', () => {
  it('exposes the reserved error codes', () => {
    expect(JSON_RPC_ERROR).toEqual({
      ParseError: -32700,
      InvalidRequest: -32600,
      MethodNotFound: -32601,
      InvalidParams: -32602,
      InternalError: -32603,
    });
  });

  it('builds a request with params', () => {
    expect(makeRequest(7, 'tools/call', { name: 'payments.lookup' })).toEqual({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'payments.lookup' },
    });
  });

  it('builds a request without a params member when none are given', () => {
    const request = makeRequest('a-1', 'ping');
    expect(request).toEqual({ jsonrpc: '2.0', id: 'a-1', method: 'ping' });
    expect(Object.hasOwn(request, 'params')).toBe(false);
  });

  it('builds a notification that has no id member', () => {
    const notification = makeNotification('notifications/tools/list_changed');
    expect(notification).toEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    expect(Object.hasOwn(notification, 'id')).toBe(false);
  });

  it('builds a notification with params', () => {
    expect(makeNotification('notifications/message', { level: 'info' })).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/message',
      params: { level: 'info' },
    });
  });

  it('builds a success response', () => {
    expect(makeResult(3, { tools: [] })).toEqual({ jsonrpc: '2.0', id: 3, result: { tools: [] } });
  });

  it('builds an error response with data', () => {
    expect(makeError(4, JSON_RPC_ERROR.InvalidParams, 'bad arguments', [{ path: '$.amount' }])).toEqual({
      jsonrpc: '2.0',
      id: 4,
      error: { code: -32602, message: 'bad arguments', data: [{ path: '$.amount' }] },
    });
  });

  it('builds an error response with a null id and no data member', () => {
    const response = makeError(null, JSON_RPC_ERROR.ParseError, 'Parse error');
    expect(response).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
    expect(Object.hasOwn(response.error, 'data')).toBe(false);
  });

  it('wraps an existing error object into a response', () => {
    expect(toErrorResponse('x', invalidRequestError('because'))).toEqual({
      jsonrpc: '2.0',
      id: 'x',
      error: { code: -32600, message: 'Invalid Request: because' },
    });
  });

  it.each([[1.5], [Number.NaN], [2 ** 60]])('refuses to build a request with id %p', (id) => {
    expect(() => makeRequest(id, 'ping')).toThrow(TypeError);
  });

  it('refuses to build a result with a float id', () => {
    expect(() => makeResult(0.5, {})).toThrow('id must be a string or a safe integer');
  });

  it('refuses to build an error with a float code', () => {
    expect(() => makeError(1, -32600.5, 'x')).toThrow('code must be an integer');
  });

  it('refuses array params at runtime even when the type system is bypassed', () => {
    const params = [1, 2] as unknown as Record<string, unknown>;
    expect(() => makeRequest(1, 'tools/call', params)).toThrow('params must be an object');
    expect(() => makeNotification('x', params)).toThrow('params must be an object');
  });
});
