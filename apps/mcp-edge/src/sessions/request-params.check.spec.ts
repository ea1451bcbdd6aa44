import { checkRequestParams, plainToolParams } from './request-params.check';

describe('request params check', () => {
  it('admits plain tools/call and tools/list params without the schema, and no other method', () => {
    expect(plainToolParams('tools/call', { name: 'a', arguments: { x: 1 }, _meta: { progressToken: 't' } })).toBe(true);
    expect(plainToolParams('tools/list', undefined)).toBe(true);
    expect(plainToolParams('prompts/get', { name: 'a' })).toBe(false);
    expect(plainToolParams('tools/call', { name: 'a', _meta: { 'io.modelcontextprotocol/related-task': { taskId: 't' } } })).toBe(false);
  });

  it('still words what the schema finds wrong in shapes the hand check leaves to it', () => {
    expect(checkRequestParams({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'a', arguments: [] } })).toMatchObject({ code: -32602, message: expect.stringContaining('Invalid params for tools/call: params.arguments') });
    expect(checkRequestParams({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'a', arguments: 'str' } })).toEqual({
      code: -32602, message: 'Invalid params for tools/call: params.arguments: Invalid input: expected object, received string',
    });
    expect(checkRequestParams({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { cursor: 7 } })).toMatchObject({ code: -32602, message: expect.stringContaining('params.cursor') });
    expect(checkRequestParams({ jsonrpc: '2.0', id: 1, method: 'prompts/get', params: {} })).toMatchObject({ code: -32602, message: expect.stringContaining('params.name') });
  });
});
