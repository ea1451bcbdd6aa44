import type { PartitionOffsets } from '../event-bus.port';

/** What a consumer's handler did last on one partition (times in ms since the epoch). */
export interface PartitionProgress {
  /** The next offset to handle: the last one handled plus one. */
  next?: bigint;
  /** When a message was last handled (or the consumer subscribed). */
  appliedAt: number;
  /** The message the handler holds right now. */
  busy?: { offset: string; since: number };
  /** The handler failed on this offset, `attempts` times, first at `since`. */
  failure?: { offset: string; since: number; attempts: number; error: string };
  /**
   * The position last reported and when it changed: a partition this instance is not assigned
   * moves only in the stored position another instance commits.
   */
  seen?: { position: string; at: number };
  /** Since when a report has seen messages waiting (lag above zero), so new arrivals are not taken for a stall. */
  waitingSince?: number;
}

export interface PartitionReport {
  partition: number;
  /** The next offset this consumer will handle; null while not known. */
  position: string | null;
  /** `high` of the log: the next offset to be written. */
  end: string | null;
  /** Messages between the position and the end; null while either is unknown. */
  lag: number | null;
  lastAppliedOffset: string | null;
  secondsSinceProgress: number;
  busy?: { offset: string; seconds: number };
  failing?: { offset: string; seconds: number; attempts: number; error: string };
}

export function describePartition(
  partition: number, progress: PartitionProgress, log: PartitionOffsets | undefined, stored: string | undefined, now: number,
): PartitionReport {
  const position = progress.next !== undefined ? String(progress.next) : stored ?? null;
  const from = position === null || log === undefined ? undefined : bigMax(BigInt(position), BigInt(log.low));
  const seconds = (since: number) => Math.round((now - since) / 100) / 10;
  if (position !== null && progress.seen?.position !== position) progress.seen = { position, at: now };
  const lag = from === undefined || log === undefined ? null : Number(bigMax(BigInt(log.high) - from, 0n));
  if (lag === null || lag === 0) progress.waitingSince = undefined;
  else progress.waitingSince ??= now;
  return {
    partition,
    position,
    end: log?.high ?? null,
    lag,
    lastAppliedOffset: progress.next === undefined ? null : String(progress.next - 1n),
    secondsSinceProgress: seconds(Math.max(progress.appliedAt, progress.seen?.at ?? 0, progress.waitingSince ?? 0)),
    ...(progress.busy ? { busy: { offset: progress.busy.offset, seconds: seconds(progress.busy.since) } } : {}),
    ...(progress.failure ? { failing: failingView(progress.failure, seconds(progress.failure.since)) } : {}),
  };
}

/**
 * Why a partition is stuck, or undefined: a handler failing on one message, or busy with it, for
 * `stallMs`; or messages waiting while nothing was handled for `stallMs` (a consumer that stopped
 * fetching says nothing else).
 */
export function stallOf(report: PartitionReport, stallMs: number): string | undefined {
  const limit = stallMs / 1000;
  const where = `partition ${report.partition}`;
  if (report.failing && report.failing.seconds >= limit) {
    return `${where}: the handler has been failing on offset ${report.failing.offset} for ${report.failing.seconds} s (${report.failing.attempts} attempts): ${report.failing.error}`;
  }
  if (report.busy && report.busy.seconds >= limit) {
    return `${where}: the handler has been busy with offset ${report.busy.offset} for ${report.busy.seconds} s`;
  }
  if (report.lag !== null && report.lag > 0 && report.secondsSinceProgress >= limit) {
    return `${where}: ${report.lag} messages wait and none was handled for ${report.secondsSinceProgress} s`;
  }
  return undefined;
}

function failingView(failure: NonNullable<PartitionProgress['failure']>, seconds: number) {
  return { offset: failure.offset, seconds, attempts: failure.attempts, error: failure.error };
}

function bigMax(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}
