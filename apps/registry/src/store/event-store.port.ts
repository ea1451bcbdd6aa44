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
  readStream(streamId: string): Promise<EventEnvelope[]>;
  /** `expectedVersion` is the number of events the caller saw in the stream. */
  append(streamId: string, expectedVersion: number, events: NewEvent[], meta: AppendMeta): Promise<EventEnvelope[]>;
  /**
   * Reads the stream, lets `decide` choose what to append, and appends it at the version read.
   * Throws ConcurrencyConflict when another writer appended in between.
   */
  update<T>(streamId: string, decide: (history: EventEnvelope[]) => StreamUpdate<T>, meta: AppendMeta): Promise<T>;
  listStreams(prefix: string): Promise<string[]>;
}

/** `update` for any store whose `append` checks the expected version: read, decide, append at the version read. */
export async function readDecideAppend<T>(
  store: Pick<EventStore, 'readStream' | 'append'>, streamId: string, decide: (history: EventEnvelope[]) => StreamUpdate<T>, meta: AppendMeta,
): Promise<T> {
  const history = await store.readStream(streamId);
  const { append, result } = decide(history);
  if (append.length > 0) await store.append(streamId, history.length, append, meta);
  return result;
}
