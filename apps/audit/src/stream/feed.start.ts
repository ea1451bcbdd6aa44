import { DEFAULT_TOKEN_TIME_LIMITS } from '@estate/platform';
import type { Parsed } from '../domain/audit-query.parser';

/** The feed's positions as a reader's start needs them: its end, and where a time falls in it. */
export interface FeedPositions {
  /** The newest trail entry's seq: the end of the feed. */
  newestSeq(): Promise<number>;
  /** The first registry entry recorded with a time after `time`, if any. */
  firstSeqAfter(time: string): Promise<number | undefined>;
}

/** Where a reader (SSE stream or webhook) asked to start; `parameter` names where it asked. */
export type FeedStart =
  | { kind: 'next' }
  /** `sealed`: the reader sees positions only as cursors, so it is not told where the feed ends either. */
  | { kind: 'position'; position: number; parameter: string; sealed: boolean }
  | { kind: 'time'; time: string; parameter: string };

/** A time this far ahead of audit's clock is another host's clock running fast, not the future. */
const CLOCK_SKEW_MS = DEFAULT_TOKEN_TIME_LIMITS.clockSkewSeconds * 1000;

const refuse = (parameter: string, message: string): Parsed<never> => ({ ok: false, parameter, message });

/**
 * The position a reader starts after. A position past the end is refused: taken as given, it
 * would skip every change until the feed grew past it, silently. A time follows discovery's
 * `?at=` rule: an entry counts at the latest time recorded up to it, so `?at=T` is the log up to
 * the first entry that happened after T, and the reader gets everything from that entry on,
 * whatever each later entry's own time.
 */
export async function feedStartAfter(start: FeedStart, positions: FeedPositions, now: Date): Promise<Parsed<number>> {
  // Read first: whatever is appended from here on lies after it, and is read.
  const end = await positions.newestSeq();
  switch (start.kind) {
    case 'next':
      return { ok: true, value: end };
    case 'position': {
      const { position, parameter, sealed } = start;
      if (position <= end) return { ok: true, value: position };
      const where = sealed ? 'the end of the feed' : `the end of the feed (${end})`;
      return refuse(parameter, `"${parameter}" is beyond ${where}: an id from another estate or from before its database was reset; leave it out to start with the next change, or send 0 to replay from the start`);
    }
    case 'time': {
      const { time, parameter } = start;
      if (Date.parse(time) > now.getTime() + CLOCK_SKEW_MS) {
        return refuse(parameter, `"${parameter}" must not be later than now (${now.toISOString()}): the feed holds no changes from the future`);
      }
      const first = await positions.firstSeqAfter(time);
      return { ok: true, value: first === undefined ? end : Math.min(first - 1, end) };
    }
    default: {
      const unreachable: never = start;
      throw new Error(`unknown feed start ${JSON.stringify(unreachable)}`);
    }
  }
}
