import { CallToolResultSchema, DiscoverResultSchema, ListToolsResultSchema } from '@modelcontextprotocol/core';

import { cacheHintErrors, completeResultErrors } from '../test/sdk-shapes.support';
import { CACHEABLE_METHODS, cacheHints, completeResult, discoverResult, perPrincipalCacheHints, resultTypeOf, withServerInfo } from './stateless-result.builder';

const serverInfo = { name: 'estate-edge', version: '0.9.0' };

describe('results of the 2026-07-28 revision', () => {
  it('builds a server/discover answer the schema accepts, naming the server in _meta', () => {
    const result = discoverResult({
      supportedVersions: ['2026-07-28', '2025-11-25'],
      capabilities: { tools: { listChanged: true }, prompts: {}, resources: { listChanged: true } },
      serverInfo,
      instructions: 'Tools of the estate, filtered to what the caller may use.',
      cache: perPrincipalCacheHints(60_000),
    });
    expect([...completeResultErrors(DiscoverResultSchema, result), ...cacheHintErrors(result)]).toEqual([]);
    expect(result).toEqual({
      resultType: 'complete',
      supportedVersions: ['2026-07-28', '2025-11-25'],
      capabilities: { tools: { listChanged: true }, prompts: {}, resources: { listChanged: true } },
      instructions: 'Tools of the estate, filtered to what the caller may use.',
      ttlMs: 60_000,
      cacheScope: 'private',
      _meta: { 'io.modelcontextprotocol/serverInfo': serverInfo },
    });
  });

  it('refuses to advertise no versions at all', () => {
    expect(() => discoverResult({ supportedVersions: [], capabilities: {}, serverInfo, cache: cacheHints(0, 'public') })).toThrow('supportedVersions must not be empty');
  });

  it('marks a per-principal tools/list private with its TTL, and the schema accepts it', () => {
    const tools = [{ name: 'weather', inputSchema: { type: 'object' } }];
    const result = completeResult('tools/list', { tools, nextCursor: 'c2' }, { serverInfo, cache: perPrincipalCacheHints(30_000) });
    expect(result).toMatchObject({ resultType: 'complete', ttlMs: 30_000, cacheScope: 'private', nextCursor: 'c2' });
    expect([...completeResultErrors(ListToolsResultSchema, result), ...cacheHintErrors(result)]).toEqual([]);
  });

  it('accepts a TTL of zero (stale at once) and refuses a negative, fractional or unsafe TTL', () => {
    expect(cacheHints(0, 'public')).toEqual({ ttlMs: 0, cacheScope: 'public' });
    for (const ttl of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 60]) expect(() => cacheHints(ttl, 'private')).toThrow('ttlMs must be a non-negative integer');
    expect(() => cacheHints(1, 'shared' as never)).toThrow('cacheScope');
  });

  it.each(CACHEABLE_METHODS.map((method) => [method]))('will not send a %s result without cache hints', (method) => {
    expect(() => completeResult(method, {})).toThrow('need ttlMs and cacheScope');
  });

  it.each([['tools/call'], ['prompts/get'], ['completion/complete']])('will not put cache hints on a %s result', (method) => {
    expect(() => completeResult(method, {}, { cache: cacheHints(1, 'public') })).toThrow('carry no cache hints');
  });

  it('builds a tools/call result the schema accepts, with resultType complete', () => {
    const result = completeResult('tools/call', { content: [{ type: 'text', text: 'done' }], isError: false }, { serverInfo });
    expect(completeResultErrors(CallToolResultSchema, result)).toEqual([]);
    expect(result['resultType']).toBe('complete');
  });

  it('lets the handler body not override resultType', () => {
    expect(completeResult('tools/call', { content: [], resultType: 'input_required' })['resultType']).toBe('complete');
  });

  it('keeps the _meta members a result already has when adding the server info', () => {
    expect(withServerInfo({ _meta: { 'io.estate/trace': 't1' }, content: [] }, serverInfo)).toEqual({
      content: [],
      _meta: { 'io.estate/trace': 't1', 'io.modelcontextprotocol/serverInfo': serverInfo },
    });
  });

  it('reads a result from a session revision, which has no resultType, as complete', () => {
    expect(resultTypeOf({ content: [] })).toBe('complete');
    expect(resultTypeOf({ resultType: 'input_required' })).toBe('input_required');
    expect(resultTypeOf(null)).toBe('complete');
  });
});
