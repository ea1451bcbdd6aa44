import { MCP_META_KEY, checkRequestHeaders, parseRequestMeta } from '@estate/protocol';
import {
  declaredParamHeaders, initializeResultFrom, judgeDiscoverAnswer, judgeDiscoverRefusal, listenFilter, paramHeaders, readInputRequired, retriedRequest,
  sessionEraResult, statelessHeaders, statelessRequest,
} from './stateless-upstream.rules';

const context = { capabilities: { elicitation: {} }, clientInfo: { name: 'estate-edge', version: '0.1.0' } };

describe('speaking 2026-07-28 to an upstream', () => {
  it('adds the version, capabilities and client to _meta, keeping the progress token, and mirrors method and target into headers', () => {
    const request = statelessRequest({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'größe', arguments: {}, _meta: { progressToken: 7 } } }, context);
    const meta = parseRequestMeta(request.params);
    expect(meta).toEqual({ ok: true, meta: { protocolVersion: '2026-07-28', clientCapabilities: { elicitation: {} }, clientInfo: context.clientInfo, progressToken: 7 } });
    const headers = statelessHeaders(request);
    expect(headers).toMatchObject({ 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call' });
    expect(headers['Mcp-Name']).toMatch(/^=\?base64\?/);
    expect(checkRequestHeaders(headers, 'tools/call', request.params, '2026-07-28')).toBeNull();
    expect(statelessRequest({ jsonrpc: '2.0', id: 4, method: 'tools/list' }, { ...context, logLevel: 'info' }).params?._meta).toMatchObject({ [MCP_META_KEY.logLevel]: 'info' });
  });

  it('mirrors x-mcp-header arguments, omitting absent and null ones', () => {
    const schema = { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, n: { type: 'integer', 'x-mcp-header': 'N' }, z: { type: 'string', 'x-mcp-header': 'Z' } } };
    const declared = declaredParamHeaders({ tools: [{ name: 't', inputSchema: schema }, { name: 'plain', inputSchema: { type: 'object' } }] });
    expect([...declared.keys()]).toEqual(['t']);
    expect(paramHeaders(declared.get('t') ?? [], { region: 'us west', n: 42, z: null })).toEqual({ 'Mcp-Param-Region': 'us west', 'Mcp-Param-N': '42' });
  });

  it('takes only a DiscoverResult listing 2026-07-28 for a stateless server; other answers lead to initialize, the revision\'s own errors to a refusal', () => {
    const discover = { jsonrpc: '2.0', id: 'd', result: { supportedVersions: ['2026-07-28'], capabilities: { tools: { listChanged: true } }, _meta: { [MCP_META_KEY.serverInfo]: { name: 'up', version: '2' } } } };
    expect(judgeDiscoverAnswer(discover)).toEqual({ era: 'stateless', server: { capabilities: { tools: { listChanged: true } }, serverInfo: { name: 'up', version: '2' } } });
    expect(judgeDiscoverAnswer({ ...discover, result: { ...discover.result, supportedVersions: ['2027-01-01'] } }).era).toBe('session');
    expect(judgeDiscoverAnswer({ jsonrpc: '2.0', id: 'd', error: { code: -32601, message: 'Method not found' } }).era).toBe('session');
    expect(judgeDiscoverRefusal(400, JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Bad Request: No valid session ID provided' } })).era).toBe('session');
    expect(judgeDiscoverRefusal(404, '<html>not here</html>').era).toBe('session');
    expect(judgeDiscoverRefusal(400, undefined).era).toBe('session');
    expect(judgeDiscoverRefusal(400, JSON.stringify({ jsonrpc: '2.0', id: 'd', error: { code: -32022, message: 'Unsupported protocol version' } }))).toEqual({
      era: 'refused', reason: expect.stringContaining('-32022'),
    });
  });

  it('answers the SDK client\'s initialize from the discovery, without resource subscriptions', () => {
    const server = { capabilities: { resources: { subscribe: true, listChanged: true }, tools: {} }, serverInfo: { name: 'up', version: '2' }, instructions: 'be kind' };
    expect(initializeResultFrom(server, '2025-11-25')).toEqual({
      protocolVersion: '2025-11-25', capabilities: { resources: { listChanged: true }, tools: {} }, serverInfo: { name: 'up', version: '2' }, instructions: 'be kind',
    });
    expect(listenFilter(server.capabilities)).toEqual({ resourcesListChanged: true });
    expect(listenFilter({ tools: {} })).toBeUndefined();
  });

  it('checks an input_required result and retries the original request with answers and state', () => {
    expect(readInputRequired({ resultType: 'input_required', inputRequests: { a: { method: 'elicitation/create', params: {} } }, requestState: 's' })).toMatchObject({ ok: true, requestState: 's' });
    expect(readInputRequired({ resultType: 'input_required' })).toEqual({ ok: false, reason: expect.stringContaining('inputRequests or requestState') });
    expect(readInputRequired({ inputRequests: { a: { method: 'tools/call' } } })).toEqual({ ok: false, reason: expect.stringContaining('inputRequests.a.method') });
    expect(readInputRequired({ inputRequests: [], requestState: 's' })).toEqual({ ok: false, reason: 'inputRequests must be an object' });
    const original = { jsonrpc: '2.0' as const, id: 9, method: 'tools/call', params: { name: 't', arguments: { x: 1 }, inputResponses: { old: {} }, requestState: 'old' } };
    expect(retriedRequest(original, { a: { action: 'accept' } }, 'new').params).toEqual({ name: 't', arguments: { x: 1 }, inputResponses: { a: { action: 'accept' } }, requestState: 'new' });
    expect(retriedRequest(original, {}, undefined).params).toEqual({ name: 't', arguments: { x: 1 } });
    expect(sessionEraResult({ resultType: 'complete', ttlMs: 5, cacheScope: 'public', content: [] })).toEqual({ content: [] });
  });
});
