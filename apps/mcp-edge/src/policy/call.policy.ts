import type { SideEffect } from '@estate/contracts';
import { confirmationBinding, ConfirmationTokens, type Redemption } from './confirmation.policy';
import { RateLimiter, type TakeResult } from './rate-limit.policy';
import { checkSize } from './size.policy';

export interface PolicyLimits {
  /** Calls per minute per principal and per tool (token buckets). */
  ratePerPrincipal: number;
  ratePerTool: number;
  maxArgumentBytes: number;
  maxResultBytes: number;
  confirmationTtlMs: number;
}

export const DEFAULT_POLICY_LIMITS: PolicyLimits = {
  ratePerPrincipal: 600,
  ratePerTool: 6000,
  maxArgumentBytes: 256 * 1024,
  maxResultBytes: 4 * 1024 * 1024,
  confirmationTtlMs: 5 * 60_000,
};

export interface CallFacts {
  /** The principal's key (rate-limit.policy.ts principalKey): tenant and subject. */
  principal: string;
  tool: string;
  sideEffect: SideEffect;
  args: Record<string, unknown>;
  /** `_meta["io.estate/confirm"]` as the caller sent it. */
  confirmToken?: unknown;
}

/** The policy's answer before the upstream is called. `confirm` means: ask, or hand out a token. */
export type PolicyVerdict =
  | { kind: 'allow' }
  | { kind: 'too_large'; bytes: number; limit: number }
  | { kind: 'rate_limited'; retryAfterMs: number; limit: 'principal' | 'tool' }
  | { kind: 'confirm'; binding: string; rejected?: Exclude<Redemption, { ok: true }>['reason'] };

/**
 * The call policy: the principal's rate on admission (every call), then for a resolved tool its
 * size, the tool's rate and confirmation. Stateful only in its buckets and pending tokens; time
 * is always passed in.
 */
export class CallPolicy {
  private readonly limiter: RateLimiter;
  readonly confirmations: ConfirmationTokens;

  constructor(readonly limits: PolicyLimits) {
    this.limiter = new RateLimiter({ perPrincipal: limits.ratePerPrincipal, perTool: limits.ratePerTool });
    this.confirmations = new ConfirmationTokens(limits.confirmationTtlMs);
  }

  /** Spends one call of the principal's budget, whatever the call turns out to be. */
  admit(principal: string, now: number): TakeResult {
    return this.limiter.admit(principal, now);
  }

  decide(facts: CallFacts, now: number): PolicyVerdict {
    const size = checkSize(facts.args, this.limits.maxArgumentBytes);
    if (!size.ok) return { kind: 'too_large', bytes: size.bytes, limit: size.limit };
    const rate = this.limiter.takeTool(facts.tool, now);
    if (!rate.ok) return { kind: 'rate_limited', retryAfterMs: rate.retryAfterMs, limit: 'tool' };
    if (facts.sideEffect !== 'destructive') return { kind: 'allow' };
    const binding = confirmationBinding(facts.principal, facts.tool, facts.args);
    if (typeof facts.confirmToken !== 'string') return { kind: 'confirm', binding };
    const redeemed = this.confirmations.redeem(facts.confirmToken, facts.principal, binding, now);
    return redeemed.ok ? { kind: 'allow' } : { kind: 'confirm', binding, rejected: redeemed.reason };
  }

  resultTooLarge(result: unknown): { bytes: number; limit: number } | undefined {
    const size = checkSize(result, this.limits.maxResultBytes);
    return size.ok ? undefined : { bytes: size.bytes, limit: size.limit };
  }
}
