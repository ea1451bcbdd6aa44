import { keepWithin } from '@estate/protocol';
/** A per-minute budget: capacity tokens, refilled evenly over a minute. */
interface Bucket {
  tokens: number;
  at: number;
}

export type TakeResult = { ok: true } | { ok: false; retryAfterMs: number };

/**
 * Token buckets keyed by anything (a principal, a tool). Time comes from the caller, so the
 * arithmetic is testable without waiting.
 */
export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();
  private readonly refillPerMs: number;

  constructor(private readonly perMinute: number, private readonly maxKeys = 100_000) {
    this.refillPerMs = perMinute / 60_000;
  }

  /** What taking one token now would do, without taking it. */
  peek(key: string, now: number): TakeResult {
    const tokens = this.level(key, now);
    if (tokens >= 1) return { ok: true };
    return { ok: false, retryAfterMs: Math.ceil((1 - tokens) / this.refillPerMs) };
  }

  take(key: string, now: number): TakeResult {
    const verdict = this.peek(key, now);
    if (verdict.ok) this.set(key, this.level(key, now) - 1, now);
    return verdict;
  }

  private level(key: string, now: number): number {
    const bucket = this.buckets.get(key);
    if (!bucket) return this.perMinute;
    return Math.min(this.perMinute, bucket.tokens + (now - bucket.at) * this.refillPerMs);
  }

  private set(key: string, tokens: number, now: number): void {
    // A full bucket carries no information: forgetting the oldest keys bounds memory.
    this.buckets.set(key, { tokens, at: now });
    keepWithin(this.buckets, this.maxKeys);
  }
}

export interface RateLimits {
  perPrincipal: number;
  perTool: number;
}

/** A principal's bucket key: its tenant and subject, so the same `sub` in another tenant has its own budget. */
export function principalKey(principal: { id: string; tenant?: string }): string {
  return JSON.stringify([principal.tenant ?? null, principal.id]);
}

/**
 * The principal's budget is spent by every call that reaches the pipeline, before anything is
 * looked up: a probe for a tool name, a call with bad arguments and a call that runs all cost the
 * same, and once the budget is gone every name gets the same refusal, so a spent budget reveals
 * nothing either. The tool's budget is spent only by calls that resolved to a tool, so a stream of
 * made-up names cannot fill memory with buckets.
 */
export class RateLimiter {
  private readonly principals: TokenBuckets;
  private readonly tools: TokenBuckets;

  constructor(limits: RateLimits) {
    this.principals = new TokenBuckets(limits.perPrincipal);
    this.tools = new TokenBuckets(limits.perTool);
  }

  admit(principal: string, now: number): TakeResult {
    return this.principals.take(principal, now);
  }

  takeTool(tool: string, now: number): TakeResult {
    return this.tools.take(tool, now);
  }
}
