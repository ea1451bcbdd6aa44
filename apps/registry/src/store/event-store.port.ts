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
   */
  update<T>(streamId: string, fromVersion: number, decide: (newer: EventEnvelope[]) => StreamUpdate<T>, meta: AppendMeta): Promise<T>;
  listStreams(prefix: string): Promise<string[]>;
}

/** `update` for any store whose `append` checks the expected version: read, decide, append at the version read. */
export async function readDecideAppend<T>(
  store: Pick<EventStore, 'readStream' | 'append'>, streamId: string, fromVersion: number,
  decide: (newer: EventEnvelope[]) => StreamUpdate<T>, meta: AppendMeta,
): Promise<T> {
  const newer = await store.readStream(streamId, fromVersion);
  const { append, result } = decide(newer);
  if (append.length > 0) await store.append(streamId, fromVersion + newer.length, append, meta);
  return result;
}
