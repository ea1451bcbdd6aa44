export interface RetryPolicy {
  maxAttempts: number;
  baseMs: number;
  capMs: number;
}

/**
 * Exponential backoff with full jitter: a uniformly random wait up to min(cap, base·2^(attempt-1)).
 * The jitter spreads the retries of many subscriptions that failed together (a receiver outage).
 * `random` in [0, 1) is passed in so the rule stays pure.
 */
export function retryDelayMs(policy: RetryPolicy, attemptsMade: number, random: number): number {
  const ceiling = Math.min(policy.capMs, policy.baseMs * 2 ** Math.max(0, attemptsMade - 1));
  return Math.floor(random * ceiling);
}

/** After a failed attempt: try again after a delay, or give up (dead letter). */
export function afterFailure(policy: RetryPolicy, attemptsMade: number, random: number): { retryInMs: number } | 'dead' {
  return attemptsMade >= policy.maxAttempts ? 'dead' : { retryInMs: retryDelayMs(policy, attemptsMade, random) };
}
