import type { EventEnvelope } from '@estate/events';

/** A new fact to append; the store stamps id, position and time. */
export interface NewEvent {
  type: string;
  version: number;
  data: unknown;
}

export interface AppendMeta {
  actor: string;
  correlationId: string;
}

export class ConcurrencyConflict extends Error {
  constructor(readonly streamId: string, readonly expected: number) {
    super(`stream ${streamId} moved past version ${expected}`);
  }
}

/** An event larger than the registry log carries: refused before it is stored, so it can never stop the relay. */
export class EventTooLarge extends Error {
  constructor(readonly streamId: string, readonly bytes: number, readonly limit: number) {
    super(`the event for ${streamId} would take ${bytes} bytes on the registry log; the limit is ${limit}`);
  }
}

/** What a stream update decided: the events to append (none is fine) and what to answer. */
export interface StreamUpdate<T> {
  append: NewEvent[];
  result: T;
}

/** The registry's event store: one stream per tool and per server, appends checked against the expected version. */
export interface EventStore {
  /** The stream's events from `fromVersion` on (all of them by default), in order. */
  readStream(streamId: string, fromVersion?: number): Promise<EventEnvelope[]>;
  /** `expectedVersion` is the number of events the caller saw in the stream. */
  append(streamId: string, expectedVersion: number, events: NewEvent[], meta: AppendMeta): Promise<EventEnvelope[]>;
  /**
   * Reads the stream from `fromVersion` (what the caller has folded already), lets `decide` choose
   * what to append, and appends it at the version read. Throws ConcurrencyConflict when another
   * writer appended in between.
   * `known`: the caller's state at `fromVersion` was read from this store before, so `decide` runs
   * on it first and what it appends is appended without reading (the append's version check
   * catches a writer in between); a decision appending nothing is made again on a fresh read.
   */
  update<T>(streamId: string, fromVersion: number, decide: (newer: EventEnvelope[]) => StreamUpdate<T>, meta: AppendMeta, known?: boolean): Promise<T>;
  listStreams(prefix: string): Promise<string[]>;
}

/** `update` for any store whose `append` checks the expected version: read, decide, append at the version read. */
export async function readDecideAppend<T>(
  store: Pick<EventStore, 'readStream' | 'append'>, streamId: string, fromVersion: number,
  decide: (newer: EventEnvelope[]) => StreamUpdate<T>, meta: AppendMeta, known = false,
): Promise<T> {
  if (known) {
    // One round trip instead of two for the usual command: nobody else wrote since we last did.
    const first = decide([]);
    if (first.append.length > 0) {
      await store.append(streamId, fromVersion, first.append, meta);
      return first.result;
    }
    // A refusal (or nothing to do) on a state that may be stale is only answered once it is confirmed current.
    const newer = await store.readStream(streamId, fromVersion);
    if (newer.length === 0) return first.result;
    return appendDecided(store, streamId, fromVersion, newer, decide(newer), meta);
  }
  const newer = await store.readStream(streamId, fromVersion);
  return appendDecided(store, streamId, fromVersion, newer, decide(newer), meta);
}

async function appendDecided<T>(
  store: Pick<EventStore, 'append'>, streamId: string, fromVersion: number, newer: EventEnvelope[], decided: StreamUpdate<T>, meta: AppendMeta,
): Promise<T> {
  const { append, result } = decided;
  if (append.length > 0) await store.append(streamId, fromVersion + newer.length, append, meta);
  return result;
}

