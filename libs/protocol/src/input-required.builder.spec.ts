import { ElicitRequestSchema, ElicitRequestURLParamsSchema, JSONRPCResultResponseSchema } from '@modelcontextprotocol/core';

import { inputRequiredResultErrors, revisionErrorErrors, shapeErrors } from '../test/sdk-shapes.support';
import { makeResult } from './json-rpc-message.builder';
import { checkInputCapabilities, confirmationRequest, declaresElicitationMode, inputRequiredResult, relayedElicitation, requiredCapabilities } from './input-required.builder';

const serverInfo = { name: 'estate-edge', version: '0.9.0' };

/*
 * The SDK's URL elicitation params still require elicitationId, a member that only tied the
 * request to the completion notification the 2026-07-28 revision removed; the revision's URL
 * elicitation has no such member, so this check is the SDK's schema without it.
 */
const UrlElicitRequestSchema = ElicitRequestSchema.extend({ params: ElicitRequestURLParamsSchema.omit({ elicitationId: true }) });

describe('input_required results', () => {
  it('asks for a destructive tool to be confirmed with a field-less form, and the schema accepts it', () => {
    const result = inputRequiredResult('tools/call', { inputRequests: { confirm: confirmationRequest('Delete the bucket "logs"?') }, requestState: 'sealed-state' }, serverInfo);
    expect(result).toEqual({
      resultType: 'input_required',
      inputRequests: { confirm: { method: 'elicitation/create', params: { mode: 'form', message: 'Delete the bucket "logs"?', requestedSchema: { type: 'object', properties: {} } } } },
      requestState: 'sealed-state',
      _meta: { 'io.modelcontextprotocol/serverInfo': serverInfo },
    });
    expect(inputRequiredResultErrors(result)).toEqual([]);
    expect(shapeErrors(JSONRPCResultResponseSchema, makeResult(3, result))).toEqual([]);
    expect(result).not.toHaveProperty('ttlMs');
  });

  it('may carry only state (the client retries at once)', () => {
    expect(inputRequiredResult('resources/read', { requestState: 's' })).toEqual({ resultType: 'input_required', requestState: 's' });
  });

  it.each([['tools/list'], ['server/discover'], ['subscriptions/listen'], ['completion/complete']])('is refused for %s, which may not ask for input', (method) => {
    expect(() => inputRequiredResult(method, { requestState: 's' })).toThrow('may not answer with input_required');
  });

  it('needs something to ask or some state to carry', () => {
    expect(() => inputRequiredResult('tools/call', {})).toThrow('give inputRequests, requestState or both');
  });

  it('refuses an empty key and an input request of an unknown kind', () => {
    expect(() => inputRequiredResult('tools/call', { inputRequests: { '': confirmationRequest('x') } })).toThrow('must not be empty');
    expect(() => inputRequiredResult('tools/call', { inputRequests: { a: { method: 'tools/call' as never } } })).toThrow('is not an input request');
  });
});

describe('relayedElicitation', () => {
  it('passes on a form elicitation from an upstream, without members elicitation does not define', () => {
    const params = { message: 'Your GitHub login?', requestedSchema: { type: 'object', properties: { login: { type: 'string' } }, required: ['login'] }, elicitationId: 'e1', extra: 1 };
    const relayed = relayedElicitation(params);
    expect(relayed).toEqual({ ok: true, request: { method: 'elicitation/create', params: { mode: 'form', message: params.message, requestedSchema: params.requestedSchema } } });
    if (relayed.ok) expect(shapeErrors(ElicitRequestSchema, relayed.request)).toEqual([]);
  });

  it('passes on a URL elicitation', () => {
    const relayed = relayedElicitation({ mode: 'url', message: 'Sign in', url: 'https://auth.example.com/x' });
    expect(relayed).toMatchObject({ ok: true, request: { params: { mode: 'url', url: 'https://auth.example.com/x' } } });
    if (relayed.ok) expect(shapeErrors(UrlElicitRequestSchema, relayed.request)).toEqual([]);
  });

  it.each([
    [null, 'elicitation params must be an object'],
    [{ requestedSchema: { type: 'object', properties: {} } }, 'elicitation params.message must be a string'],
    [{ message: 'm', requestedSchema: { type: 'array' } }, 'a form-mode elicitation needs params.requestedSchema with type "object" and properties'],
    [{ message: 'm', mode: 'url' }, 'a URL-mode elicitation needs params.url as a string'],
    [{ message: 'm', mode: 'voice' }, 'elicitation mode must be "form" or "url", got "voice"'],
  ])('refuses to relay %p', (params, reason) => {
    expect(relayedElicitation(params)).toEqual({ ok: false, reason });
  });
});

describe('client capabilities for input requests', () => {
  const form = confirmationRequest('ok?');
  const url = { method: 'elicitation/create' as const, params: { mode: 'url', message: 'go', url: 'https://x.example' } };
  const sampling = { method: 'sampling/createMessage' as const, params: { messages: [], maxTokens: 10 } };
  const roots = { method: 'roots/list' as const };

  it('works out what a set of input requests needs', () => {
    expect(requiredCapabilities({ a: form, b: url, c: sampling, d: roots })).toEqual({ elicitation: { form: {}, url: {} }, sampling: {}, roots: {} });
    expect(requiredCapabilities({})).toEqual({});
  });

  it('reads an elicitation capability with no mode named as form mode only', () => {
    expect(declaresElicitationMode({ elicitation: {} }, 'form')).toBe(true);
    expect(declaresElicitationMode({ elicitation: {} }, 'url')).toBe(false);
    expect(declaresElicitationMode({ elicitation: { url: {} } }, 'form')).toBe(false);
    expect(declaresElicitationMode({}, 'form')).toBe(false);
  });

  it('lets a confirmation through when the client declared elicitation', () => {
    expect(checkInputCapabilities({ elicitation: {} }, { confirm: form })).toBeNull();
    expect(checkInputCapabilities({ elicitation: { form: {}, url: {} }, sampling: {}, roots: {} }, { a: form, b: url, c: sampling, d: roots })).toBeNull();
  });

  it('answers -32021 listing exactly what is missing, in a shape the schema accepts', () => {
    const error = checkInputCapabilities({ elicitation: { form: {} } }, { a: form, b: url, c: sampling });
    expect(error).toEqual({ code: -32021, message: 'Missing required client capability: sampling, elicitation.url', data: { requiredCapabilities: { sampling: {}, elicitation: { url: {} } } } });
    expect(revisionErrorErrors('MissingRequiredClientCapability', { jsonrpc: '2.0', id: 1, error })).toEqual([]);
  });

  it('answers -32021 for a confirmation to a client without elicitation', () => {
    expect(checkInputCapabilities({}, { confirm: form })).toMatchObject({ code: -32021, data: { requiredCapabilities: { elicitation: { form: {} } } } });
  });
});
