import { CallPolicy, DEFAULT_POLICY_LIMITS } from './call.policy';
import { confirmationBinding, ConfirmationTokens } from './confirmation.policy';
import { principalKey, TokenBuckets } from './rate-limit.policy';
import { nextRetryDelay } from './retry.policy';

describe('retry policy', () => {
  it('retries reads and idempotent writes with growing, bounded waits', () => {
    expect([1, 2].map((n) => nextRetryDelay('read', 'unreachable', n))).toEqual([50, 100]);
    expect(nextRetryDelay('idempotent_write', 'timeout', 1)).toBe(50);
    expect(nextRetryDelay('read', 'upstream_error', 3)).toBeUndefined();
    expect(nextRetryDelay('read', 'timeout', 5, { maxAttempts: 10, baseDelayMs: 50, maxDelayMs: 300 })).toBe(300);
  });

  it('never retries a write, a destructive call, or a request the upstream rejected', () => {
    expect(nextRetryDelay('write', 'unreachable', 1)).toBeUndefined();
    expect(nextRetryDelay('destructive', 'timeout', 1)).toBeUndefined();
    expect(nextRetryDelay('read', 'rejected', 1)).toBeUndefined();
  });
});

describe('token buckets', () => {
  it('allows the budget, then says how long until the next token', () => {
    const buckets = new TokenBuckets(60);
    for (let i = 0; i < 60; i += 1) expect(buckets.take('p', 0)).toEqual({ ok: true });
    expect(buckets.take('p', 0)).toEqual({ ok: false, retryAfterMs: 1000 });
    expect(buckets.take('p', 1000)).toEqual({ ok: true });
    expect(buckets.take('q', 0)).toEqual({ ok: true });
  });
});

describe('confirmation tokens', () => {
  const binding = confirmationBinding('alice', 'bank.release', { reference: 'PMT-1', note: 'x' });

  it('binds to principal, tool and arguments regardless of key order', () => {
    expect(confirmationBinding('alice', 'bank.release', { note: 'x', reference: 'PMT-1' })).toBe(binding);
    expect(confirmationBinding('bob', 'bank.release', { reference: 'PMT-1', note: 'x' })).not.toBe(binding);
  });

  it('confirms once, before expiry, for the same binding only', () => {
    const tokens = new ConfirmationTokens(1000, () => 'fixed');
    const { token } = tokens.issue('alice', binding, 0);
    expect(tokens.redeem(token, 'alice', binding, 10)).toEqual({ ok: true });
    expect(tokens.redeem(token, 'alice', binding, 20)).toEqual({ ok: false, reason: 'unknown' });
    const late = tokens.issue('alice', binding, 0).token;
    expect(tokens.redeem(late, 'alice', binding, 1000)).toEqual({ ok: false, reason: 'expired' });
    const other = tokens.issue('alice', binding, 0).token;
    expect(tokens.redeem(other, 'alice', 'another', 1)).toEqual({ ok: false, reason: 'mismatch' });
    expect(tokens.redeem(other, 'alice', binding, 2)).toEqual({ ok: false, reason: 'unknown' });
  });

  it("is unknown to another principal, and stays unspent for its owner", () => {
    let n = 0;
    const tokens = new ConfirmationTokens(1000, () => `t${(n += 1)}`);
    const { token } = tokens.issue('alice', binding, 0);
    const bobs = confirmationBinding('bob', 'bank.release', { reference: 'PMT-1', note: 'x' });
    expect(tokens.redeem(token, 'bob', bobs, 1)).toEqual({ ok: false, reason: 'unknown' });
    expect(tokens.redeem(token, 'bob', binding, 2)).toEqual({ ok: false, reason: 'unknown' });
    expect(tokens.redeem(token, 'alice', binding, 3)).toEqual({ ok: true });
  });
});

describe('call policy', () => {
  const facts = { principal: 'p', tool: 't', sideEffect: 'read' as const, args: { a: 1 } };

  it('checks size first, then the tool rate, then confirmation', () => {
    const policy = new CallPolicy({ ...DEFAULT_POLICY_LIMITS, maxArgumentBytes: 10, ratePerTool: 1 });
    expect(policy.decide({ ...facts, args: { a: 'x'.repeat(20) } }, 0)).toMatchObject({ kind: 'too_large', limit: 10 });
    expect(policy.decide(facts, 0)).toEqual({ kind: 'allow' });
    expect(policy.decide(facts, 0)).toMatchObject({ kind: 'rate_limited', limit: 'tool', retryAfterMs: 60000 });
    expect(policy.decide({ ...facts, tool: 'u' }, 0)).toEqual({ kind: 'allow' });
  });

  it('meters every admitted call against the principal, keyed by tenant and subject', () => {
    const policy = new CallPolicy({ ...DEFAULT_POLICY_LIMITS, ratePerPrincipal: 2 });
    const north = principalKey({ id: 'mallory', tenant: 'north' });
    expect([policy.admit(north, 0), policy.admit(north, 0)]).toEqual([{ ok: true }, { ok: true }]);
    expect(policy.admit(north, 0)).toEqual({ ok: false, retryAfterMs: 30000 });
    expect(policy.admit(principalKey({ id: 'mallory', tenant: 'south' }), 0)).toEqual({ ok: true });
    expect(policy.admit(principalKey({ id: 'mallory' }), 0)).toEqual({ ok: true });
    expect(principalKey({ id: 'a', tenant: 'b' })).not.toBe(principalKey({ id: 'b', tenant: 'a' }));
  });

  it('asks for confirmation of destructive calls and accepts a matching token', () => {
    const policy = new CallPolicy(DEFAULT_POLICY_LIMITS);
    const destructive = { ...facts, sideEffect: 'destructive' as const };
    const verdict = policy.decide(destructive, 0);
    expect(verdict.kind).toBe('confirm');
    const { token } = policy.confirmations.issue(facts.principal, verdict.kind === 'confirm' ? verdict.binding : '', 0);
    expect(policy.decide({ ...destructive, confirmToken: token }, 1)).toEqual({ kind: 'allow' });
    expect(policy.decide({ ...destructive, confirmToken: token }, 2)).toMatchObject({ kind: 'confirm', rejected: 'unknown' });
  });
});
