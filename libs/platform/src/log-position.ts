import type { BusMessage, PartitionOffsets } from './event-bus.port';

/** A consumer's stored position on one partition: the next offset to read and the id of the event it applied last. */
export interface StoredPosition {
  next: string;
  lastEventId: string | null;
}

/**
 * Where to resume on a partition, judged against what the log holds now.
 * - `fresh`: nothing stored; read from the log's start.
 * - `verify`: the log reaches our position; re-read the last applied offset and check it holds the
 *   event we applied (a recreated log that grew past us would hold another event there).
 * - `resume`: the log reaches our position but the last applied event can no longer be checked.
 * - `lost`: the log no longer holds what we read (reset, truncated or recreated): start over.
 *   `unread` says events we never read were deleted too: reading the log again cannot bring them back.
 */
export type PositionVerdict =
  | { kind: 'fresh'; startAt: string }
  | { kind: 'verify'; startAt: string; expectId: string }
  | { kind: 'resume'; startAt: string }
  | { kind: 'lost'; startAt: string; reason: string; unread: boolean };

export function judgePosition(stored: StoredPosition | undefined, log: PartitionOffsets | undefined): PositionVerdict {
  const low = log?.low ?? '0';
  if (stored === undefined || BigInt(stored.next) === 0n) return { kind: 'fresh', startAt: low };
  const next = BigInt(stored.next);
  if (log === undefined) return { kind: 'lost', startAt: '0', reason: `the partition no longer exists (stored position ${next})`, unread: false };
  if (BigInt(log.high) < next) {
    return { kind: 'lost', startAt: low, reason: `the log ends at offset ${log.high}, below the stored position ${next}`, unread: false };
  }
  if (BigInt(low) > next) {
    return { kind: 'lost', startAt: low, reason: `the log starts at offset ${low}, past the stored position ${next}: events were deleted unread`, unread: true };
  }
  if (stored.lastEventId === null || BigInt(low) > next - 1n) return { kind: 'resume', startAt: stored.next };
  return { kind: 'verify', startAt: String(next - 1n), expectId: stored.lastEventId };
}

/** The event id a message carries: the relay's `estate-id` header, else the envelope's own id. */
export function messageEventId(message: Pick<BusMessage, 'headers' | 'value'>): string | null {
  const header = message.headers['estate-id'];
  if (header) return header;
  try {
    const parsed: unknown = JSON.parse(message.value ?? 'null');
    const id = (parsed as { id?: unknown } | null)?.id;
    return typeof id === 'string' ? id : null;
  } catch {
    return null;
  }
}
