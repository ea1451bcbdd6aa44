import fc from 'fast-check';

import { CallToolRequestSchema, DiscoverRequestSchema } from '@modelcontextprotocol/core';

import { revisionErrorErrors, shapeErrors } from '../test/sdk-shapes.support';
import { isJsonObject } from './json-rpc-id.guard';
import { negotiateMessageEra, negotiateRequestEra, type EraDecision, type HttpRequestFacts } from './request-era.negotiator';
import { declaresRequestVersion } from './request-meta.parser';

const VERSION = 'io.modelcontextprotocol/protocolVersion';
const CAPS = 'io.modelcontextprotocol/clientCapabilities';

function statelessBody(method: string, extra: Record<string, unknown> = {}, version = '2026-07-28'): Record<string, unknown> {
  return { jsonrpc: '2.0', id: 9, method, params: { ...extra, _meta: { [VERSION]: version, [CAPS]: {} } } };
}

function headers(method: string, name?: string, version = '2026-07-28'): Record<string, string> {
  return { 'mcp-protocol-version': version, 'mcp-method': method, ...(name === undefined ? {} : { 'mcp-name': name }) };
}

function post(body: unknown, hdrs: Record<string, string | string[]>): EraDecision {
  return negotiateRequestEra({ httpMethod: 'POST', headers: hdrs, body });
}

function refusal(decision: EraDecision): { status: number; code: number; message: string; id: unknown } {
  if (decision.era !== 'refused') throw new Error(`expected a refusal, got ${decision.era}`);
  return { status: decision.httpStatus, code: decision.reply.error.code, message: decision.reply.error.message, id: decision.reply.id };
}

describe('negotiateRequestEra — which revision answers an HTTP request', () => {
  it('serves a well-formed 2026-07-28 tools/call statelessly, with its parsed _meta', () => {
    const body = statelessBody('tools/call', { name: 'weather', arguments: { city: 'Oslo' } });
    expect(shapeErrors(CallToolRequestSchema, body)).toEqual([]);
    const decision = post(body, headers('tools/call', 'weather'));
    expect(decision).toMatchObject({ era: 'stateless', kind: 'request', request: { id: 9, method: 'tools/call' }, meta: { protocolVersion: '2026-07-28', clientCapabilities: {} } });
  });

  it('ignores an Mcp-Session-Id header on a stateless request (there are no sessions to find)', () => {
    const decision = post(statelessBody('tools/list'), { ...headers('tools/list'), 'mcp-session-id': 'stale' });
    expect(decision.era).toBe('stateless');
  });

  it.each<[string, string, Record<string, string>]>([
    ['a session revision with its version header', '2025-11-25', { 'mcp-protocol-version': '2025-11-25' }],
    ['a session revision without a version header', '2025-06-18', {}],
    ['a version nobody speaks', '1900-01-01', { 'mcp-protocol-version': '2025-11-25' }],
  ])('judges a POST inside a session whose _meta declares %s as a session request', (_case, version, hdrs) => {
    expect(post(statelessBody('tools/list', {}, version), { ...hdrs, 'mcp-session-id': 'live' })).toEqual({ era: 'session' });
  });

  it('still refuses a sessionless POST whose _meta declares a session revision', () => {
    expect(refusal(post(statelessBody('tools/list', {}, '2025-11-25'), { 'mcp-protocol-version': '2025-11-25' }))).toMatchObject({ status: 400, code: -32022 });
  });

  it('judges a 2026-07-28 _meta under a session version header inside a session as the header mismatch it is', () => {
    expect(refusal(post(statelessBody('tools/list'), { 'mcp-protocol-version': '2025-11-25', 'mcp-session-id': 'live' }))).toMatchObject({ code: -32020 });
  });

  it.each([
    ['an initialize', { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } }, { 'mcp-protocol-version': '2025-11-25' }],
    ['an initialize that even names 2026-07-28 in its header', { jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }, { 'mcp-protocol-version': '2026-07-28' }],
    ['a session request with a legacy version header', { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'mcp-protocol-version': '2025-06-18', 'mcp-session-id': 's' }],
    ['a request with no version header and no _meta version (2025-03-26 clients)', { jsonrpc: '2.0', id: 2, method: 'tools/list' }, {}],
    ['an unknown version header without _meta (the session path answers it as today)', { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'mcp-protocol-version': '2099-01-01' }],
    ['a legacy batch', [{ jsonrpc: '2.0', id: 2, method: 'tools/list' }], { 'mcp-protocol-version': '2025-03-26' }],
    ['an unparseable body (undefined) without a 2026 header', undefined, {}],
  ])('leaves %s to the session path', (_case, body, hdrs) => {
    expect(post(body, hdrs)).toEqual({ era: 'session' });
  });

  it.each(['GET', 'DELETE', 'get'])('answers %s from a client announcing 2026-07-28 with 405 and Allow: POST', (httpMethod) => {
    const decision = negotiateRequestEra({ httpMethod, headers: { 'MCP-Protocol-Version': '2026-07-28', 'mcp-session-id': 'x' } });
    expect(decision).toMatchObject({ era: 'refused', httpStatus: 405, allow: 'POST', reply: { jsonrpc: '2.0', id: null, error: { code: -32600 } } });
    expect(refusal(decision).message).toContain('subscriptions/listen');
  });

  it.each<[string, HttpRequestFacts]>([
    ['a GET with a legacy version', { httpMethod: 'GET', headers: { 'mcp-protocol-version': '2025-11-25', 'mcp-session-id': 's' } }],
    ['a DELETE with no version header', { httpMethod: 'DELETE', headers: { 'mcp-session-id': 's' } }],
    ['a PUT from a 2026 client (the endpoint refuses it as for everyone)', { httpMethod: 'PUT', headers: { 'mcp-protocol-version': '2026-07-28' } }],
  ])('leaves %s to the session path', (_case, facts) => {
    expect(negotiateRequestEra(facts)).toEqual({ era: 'session' });
  });

  it('refuses a batch from a 2026 client with -32600 and 400', () => {
    expect(refusal(post([statelessBody('tools/list')], headers('tools/list')))).toMatchObject({ status: 400, code: -32600, id: null });
  });

  it('refuses a JSON-RPC response POSTed by a 2026 client with -32600 and 400', () => {
    expect(refusal(post({ jsonrpc: '2.0', id: 3, result: {} }, headers('tools/list')))).toMatchObject({ status: 400, code: -32600, id: null });
  });

  it('refuses a malformed envelope under a 2026 header with the envelope error and the usable id', () => {
    expect(refusal(post({ jsonrpc: '1.0', id: 4, method: 'tools/list' }, headers('tools/list')))).toMatchObject({ status: 400, code: -32600, id: 4 });
  });

  it('accepts a notification POSTed the stateless way (the endpoint answers 202)', () => {
    const decision = post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } }, { 'mcp-protocol-version': '2026-07-28' });
    expect(decision).toMatchObject({ era: 'stateless', kind: 'notification', notification: { method: 'notifications/cancelled' } });
  });

  it('refuses a 2026 request whose _meta lacks the capabilities with -32602 and 400, naming the member', () => {
    const body = { jsonrpc: '2.0', id: 5, method: 'tools/list', params: { _meta: { [VERSION]: '2026-07-28' } } };
    expect(refusal(post(body, headers('tools/list')))).toEqual({ status: 400, code: -32602, id: 5, message: `Invalid params: params._meta["${CAPS}"]: must be an object (empty when the client offers nothing), got nothing (member missing)` });
  });

  it('refuses a 2026 header over a body without _meta with -32602 (the version is required in the body too)', () => {
    expect(refusal(post({ jsonrpc: '2.0', id: 6, method: 'tools/list' }, headers('tools/list')))).toMatchObject({ status: 400, code: -32602, id: 6 });
  });

  it('answers a version it does not speak with -32022, listing every version it does, stateless first', () => {
    const decision = post(statelessBody('tools/list', {}, '1900-01-01'), headers('tools/list', undefined, '1900-01-01'));
    expect(decision).toMatchObject({ era: 'refused', httpStatus: 400 });
    if (decision.era !== 'refused') return;
    expect(decision.reply.error).toEqual({ code: -32022, message: 'Unsupported protocol version', data: { requested: '1900-01-01', supported: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] } });
    expect(revisionErrorErrors('UnsupportedProtocolVersion', decision.reply)).toEqual([]);
  });

  it('answers a session revision declared per request with -32022 saying it needs initialize, listing only the versions usable without a session', () => {
    const decision = post(statelessBody('tools/list', {}, '2025-11-25'), headers('tools/list', undefined, '2025-11-25'));
    expect(decision).toMatchObject({ era: 'refused', httpStatus: 400 });
    if (decision.era !== 'refused') return;
    expect(decision.reply.error).toEqual({
      code: -32022,
      message: 'Unsupported protocol version without a session: 2025-11-25 needs initialize (a session) first; without one, use 2026-07-28',
      data: { requested: '2025-11-25', supported: ['2026-07-28'] },
    });
    expect(revisionErrorErrors('UnsupportedProtocolVersion', decision.reply)).toEqual([]);
  });

  it('refuses a version header that disagrees with _meta as a header mismatch, before judging either version', () => {
    const decision = post(statelessBody('tools/list', {}, '1900-01-01'), headers('tools/list'));
    expect(refusal(decision)).toEqual({ status: 400, code: -32020, id: 9, message: 'Header mismatch: MCP-Protocol-Version header value "2026-07-28" does not match body value "1900-01-01"' });
    if (decision.era === 'refused') expect(revisionErrorErrors('HeaderMismatch', decision.reply)).toEqual([]);
  });

  it('refuses a body that declares 2026-07-28 but comes without the version header', () => {
    expect(refusal(post(statelessBody('tools/list'), { 'mcp-method': 'tools/list' }))).toMatchObject({ status: 400, code: -32020, message: 'Header mismatch: required header MCP-Protocol-Version is missing' });
  });

  it('refuses an Mcp-Method that routes elsewhere than the body goes', () => {
    expect(refusal(post(statelessBody('tools/call', { name: 'drop_db' }), headers('tools/list', 'drop_db')))).toMatchObject({ status: 400, code: -32020, message: 'Header mismatch: Mcp-Method header value "tools/list" does not match body value "tools/call"' });
  });

  it('refuses a tools/call whose Mcp-Name names another tool than the body', () => {
    expect(refusal(post(statelessBody('tools/call', { name: 'drop_db' }), headers('tools/call', 'read_only')))).toMatchObject({ code: -32020, message: 'Header mismatch: Mcp-Name header value "read_only" does not match body value "drop_db"' });
  });

  it.each(['ping', 'logging/setLevel', 'resources/subscribe', 'tasks/list', 'no/such'])(
    'answers the method %s, absent from 2026-07-28, with -32601 and 404',
    (method) => {
      expect(refusal(post(statelessBody(method), headers(method)))).toMatchObject({ status: 404, code: -32601, id: 9 });
    },
  );

  it('answers server/discover statelessly', () => {
    const body = statelessBody('server/discover');
    expect(shapeErrors(DiscoverRequestSchema, body)).toEqual([]);
    expect(post(body, headers('server/discover'))).toMatchObject({ era: 'stateless', kind: 'request', request: { method: 'server/discover' } });
  });
});

describe('negotiateMessageEra — one stdio message', () => {
  it('serves a server/discover probe statelessly, with no headers to check', () => {
    expect(negotiateMessageEra(statelessBody('server/discover'))).toMatchObject({ era: 'stateless', kind: 'request', request: { method: 'server/discover' } });
  });

  it.each([
    ['an initialize', { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25' } }],
    ['a session request', { jsonrpc: '2.0', id: 2, method: 'tools/list' }],
    ['a batch', [statelessBody('tools/list')]],
    ['a notification', { jsonrpc: '2.0', method: 'notifications/initialized' }],
  ])('leaves %s to the session of the process', (_case, body) => {
    expect(negotiateMessageEra(body)).toEqual({ era: 'session' });
  });

  it('refuses a declared version it does not speak with -32022', () => {
    expect(refusal(negotiateMessageEra(statelessBody('tools/list', {}, '2030-01-01')))).toMatchObject({ code: -32022, id: 9 });
  });

  it('leaves a message declaring a session revision to the initialized session, and still serves a 2026-07-28 one statelessly', () => {
    expect(negotiateMessageEra(statelessBody('tools/list', {}, '2025-11-25'), true)).toEqual({ era: 'session' });
    expect(refusal(negotiateMessageEra(statelessBody('tools/list', {}, '2025-11-25'), false))).toMatchObject({ code: -32022 });
    expect(negotiateMessageEra(statelessBody('server/discover'), true)).toMatchObject({ era: 'stateless', kind: 'request' });
  });
});

describe('negotiateRequestEra — properties', () => {
  const headerSets = fc.record(
    {
      'mcp-protocol-version': fc.constantFrom('2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2099-01-01', ''),
      'mcp-session-id': fc.string(),
      'mcp-method': fc.string(),
    },
    { requiredKeys: [] },
  );

  it('never throws, whatever the body and headers', () => {
    fc.assert(
      fc.property(fc.constantFrom('POST', 'GET', 'DELETE', 'PUT'), fc.jsonValue(), headerSets, fc.boolean(), (httpMethod, body, hdrs, stateless) => {
        const headers = stateless ? { ...hdrs, 'mcp-protocol-version': '2026-07-28' } : hdrs;
        expect(() => negotiateRequestEra({ httpMethod, headers, body })).not.toThrow();
      }),
      { numRuns: 300 },
    );
  });

  it('leaves every request without a 2026-07-28 header or a _meta version to the session path', () => {
    const legacyBody = fc.oneof(
      fc.jsonValue(),
      fc.record({ jsonrpc: fc.constant('2.0'), id: fc.integer(), method: fc.constantFrom('tools/list', 'tools/call', 'initialize', 'ping'), params: fc.dictionary(fc.string(), fc.jsonValue()) }),
    );
    fc.assert(
      fc.property(fc.constantFrom('POST', 'GET', 'DELETE'), legacyBody, headerSets, (httpMethod, body, headers) => {
        fc.pre(!(isJsonObject(body) && declaresRequestVersion(body['params'])));
        expect(negotiateRequestEra({ httpMethod, headers, body })).toEqual({ era: 'session' });
      }),
      { numRuns: 300 },
    );
  });
});
