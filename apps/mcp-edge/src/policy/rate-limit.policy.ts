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
    if (this.buckets.size >= this.maxKeys && !this.buckets.has(key)) this.buckets.delete(this.buckets.keys().next().value as string);
    this.buckets.set(key, { tokens, at: now });
  }
}

export interface RateLimits {
  perPrincipal: number;
  perTool: number;
}

/**
 * Both limits must allow a call before either is charged, so a call refused by the tool's limit
 * does not spend the principal's budget.
 */
export class RateLimiter {
  private readonly principals: TokenBuckets;
  private readonly tools: TokenBuckets;

  constructor(limits: RateLimits) {
    this.principals = new TokenBuckets(limits.perPrincipal);
    this.tools = new TokenBuckets(limits.perTool);
  }

  take(principal: string, tool: string, now: number): TakeResult & { limit?: 'principal' | 'tool' } {
    const byPrincipal = this.principals.peek(principal, now);
    if (!byPrincipal.ok) return { ...byPrincipal, limit: 'principal' };
    const byTool = this.tools.peek(tool, now);
    if (!byTool.ok) return { ...byTool, limit: 'tool' };
    this.principals.take(principal, now);
    this.tools.take(tool, now);
    return { ok: true };
  }
}
