import { CallToolRequestParamsSchema, ElicitResultSchema } from '@modelcontextprotocol/core';

import { StatelessRequestMetaSchema, fits } from '../test/sdk-shapes.support';
import { elicitationAnswer, parseRetryInputs } from './input-responses.parser';

describe('parseRetryInputs', () => {
  it('reads the answers and the state a retry carries', () => {
    const params = { name: 'drop', inputResponses: { confirm: { action: 'accept' } }, requestState: 's1' };
    const statelessParams = CallToolRequestParamsSchema.extend({ _meta: StatelessRequestMetaSchema });
    expect(fits(statelessParams, { ...params, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } })).toBe(true);
    // By hand (the SDK's params know no retry members): each input response is the answer the
    // client produced for one input request, here an elicitation result, and requestState is a string.
    expect(Object.values(params.inputResponses).every((answer) => fits(ElicitResultSchema, answer))).toBe(true);
    expect(typeof params.requestState).toBe('string');
    expect(parseRetryInputs(params)).toEqual({ ok: true, inputs: { inputResponses: { confirm: { action: 'accept' } }, requestState: 's1' } });
  });

  it('reads a first attempt as carrying nothing', () => {
    expect(parseRetryInputs({ name: 'drop' })).toEqual({ ok: true, inputs: {} });
  });

  it.each([
    [{ inputResponses: [] }, 'Invalid params: params.inputResponses: must be an object keyed like the inputRequests, got array'],
    [{ inputResponses: { confirm: 'yes' } }, 'Invalid params: params.inputResponses.confirm: must be an object, got string'],
    [{ inputResponses: { 'my key': 1 } }, 'Invalid params: params.inputResponses["my key"]: must be an object, got integer'],
    [{ requestState: 42 }, 'Invalid params: params.requestState: must be a string, got integer'],
  ])('refuses %p with -32602 naming the member', (params, message) => {
    expect(parseRetryInputs(params)).toEqual({ ok: false, error: { code: -32602, message } });
  });
});

describe('elicitationAnswer', () => {
  it.each(['accept', 'decline', 'cancel'] as const)('reads the user answer %s', (action) => {
    expect(elicitationAnswer({ inputResponses: { confirm: { action } } }, 'confirm')).toEqual({ kind: 'answered', action });
  });

  it('keeps form content with an accept', () => {
    expect(elicitationAnswer({ inputResponses: { login: { action: 'accept', content: { name: 'octo' } } } }, 'login')).toEqual({ kind: 'answered', action: 'accept', content: { name: 'octo' } });
  });

  it('reports a missing answer so the server can ask again instead of failing', () => {
    expect(elicitationAnswer({}, 'confirm')).toEqual({ kind: 'missing' });
    expect(elicitationAnswer({ inputResponses: { other: { action: 'accept' } } }, 'confirm')).toEqual({ kind: 'missing' });
  });

  it('refuses an answer the schema would refuse, naming the member', () => {
    expect(fits(ElicitResultSchema, { action: 'maybe' })).toBe(false);
    expect(elicitationAnswer({ inputResponses: { confirm: { action: 'maybe' } } }, 'confirm')).toEqual({ kind: 'invalid', error: { code: -32602, message: 'Invalid params: params.inputResponses.confirm.action: must be one of accept, decline, cancel' } });
    expect(elicitationAnswer({ inputResponses: { confirm: { action: 'accept', content: 'x' } } }, 'confirm')).toMatchObject({ kind: 'invalid', error: { message: 'Invalid params: params.inputResponses.confirm.content: must be an object, got string' } });
  });
});
