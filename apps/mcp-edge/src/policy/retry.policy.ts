import { isRetryable, type SideEffect } from '@estate/contracts';

/** Why an upstream attempt failed, as far as retrying is concerned. */
export type FailureKind = 'unreachable' | 'timeout' | 'upstream_error' | 'rejected';

export interface RetryPolicy {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 3, baseDelayMs: 50, maxDelayMs: 1000 };

/**
 * The wait before the next attempt, or undefined when there is none. Only read and
 * idempotent_write tools are retried: repeating a write or a destructive call could do it twice.
 * A call the upstream rejected as malformed would fail the same way again.
 */
export function nextRetryDelay(sideEffect: SideEffect, kind: FailureKind, attemptsMade: number, policy: RetryPolicy = DEFAULT_RETRY_POLICY): number | undefined {
  if (!isRetryable(sideEffect) || kind === 'rejected') return undefined;
  if (attemptsMade >= policy.maxAttempts) return undefined;
  return Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attemptsMade - 1));
}
