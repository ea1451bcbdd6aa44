import { createHmac } from 'node:crypto';

import fc from 'fast-check';

import { openRequestState, requestStateRejectedError, sealRequestState, type StateMac } from './request-state.codec';

// A real HMAC, as the edge will use; the library itself only receives the function.
const mac: StateMac = (text) => createHmac('sha256', 'test-key').update(text).digest('base64url');
const otherKeyMac: StateMac = (text) => createHmac('sha256', 'other-key').update(text).digest('base64url');

const binding = { principal: 'tenant-a/alice', method: 'tools/call', binding: 'sha256-of-tool-and-args' };
const now = 1_800_000_000_000;

describe('requestState sealing', () => {
  it('gives back the sealed data to the same principal, for the same request, before expiry', () => {
    const state = sealRequestState({ ...binding, expiresAt: now + 60_000, data: { key: 'confirm', upstream: 'u-state' } }, mac);
    expect(openRequestState(state, mac, binding, now + 59_999)).toEqual({ ok: true, data: { key: 'confirm', upstream: 'u-state' } });
  });

  it('is an opaque string a client can echo unchanged', () => {
    expect(sealRequestState({ ...binding, expiresAt: now, data: null }, mac)).toMatch(/^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
  });

  it.each([
    ['another principal', { ...binding, principal: 'tenant-a/bob' }, now, 'other_principal'],
    ['another tool or arguments', { ...binding, binding: 'sha256-of-other-args' }, now, 'other_request'],
    ['another method', { ...binding, method: 'prompts/get' }, now, 'other_request'],
    ['the moment it expires', binding, now + 60_000, 'expired'],
  ])('refuses it for %s', (_case, expected, at, reason) => {
    const state = sealRequestState({ ...binding, expiresAt: now + 60_000, data: 1 }, mac);
    expect(openRequestState(state, mac, expected, at)).toEqual({ ok: false, reason });
  });

  it('refuses state sealed under another key', () => {
    const state = sealRequestState({ ...binding, expiresAt: now + 60_000, data: 1 }, otherKeyMac);
    expect(openRequestState(state, mac, binding, now)).toEqual({ ok: false, reason: 'forged' });
  });

  it('refuses any change to the sealed body, even one that still decodes', () => {
    const state = sealRequestState({ ...binding, expiresAt: now + 60_000, data: 1 }, mac);
    const [version, , tag] = state.split('.');
    const forgedBody = Buffer.from(JSON.stringify({ p: binding.principal, m: binding.method, b: binding.binding, x: now + 9e9, d: 1 })).toString('base64url');
    expect(openRequestState(`${version}.${forgedBody}.${tag}`, mac, binding, now)).toEqual({ ok: false, reason: 'forged' });
  });

  it.each([[''], ['v1'], ['v1.a'], ['v2.a.b'], ['v1.a.b.c'], ['not state at all']])('refuses the malformed state %p', (presented) => {
    expect(openRequestState(presented, mac, binding, now)).toEqual({ ok: false, reason: 'malformed' });
  });

  it('refuses a correctly signed body that is not a JSON object as malformed', () => {
    const body = Buffer.from('[1,2]').toString('base64url');
    expect(openRequestState(`v1.${body}.${mac(`v1.${body}`)}`, mac, binding, now)).toEqual({ ok: false, reason: 'malformed' });
  });

  it('never opens a tampered string, whatever the tampering', () => {
    const state = sealRequestState({ ...binding, expiresAt: now + 60_000, data: { n: 1 } }, mac);
    fc.assert(
      fc.property(fc.nat({ max: state.length - 1 }), fc.constantFrom(...'ABCabc019-_.'), (index, char) => {
        const tampered = state.slice(0, index) + char + state.slice(index + 1);
        fc.pre(tampered !== state);
        expect(openRequestState(tampered, mac, binding, now).ok).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it('answers every refusal with the same -32602, naming the member', () => {
    expect(requestStateRejectedError()).toEqual({ code: -32602, message: 'Invalid params: params.requestState: is not valid for this request; send the request again without it' });
  });
});
