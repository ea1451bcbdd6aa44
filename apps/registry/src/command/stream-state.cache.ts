import { keepWithin } from '@estate/protocol';
import type { Decider } from '../domain/decider';

/** The state of one stream as a decider sees it, and how many events built it. */
export interface Loaded<State> {
  state: State;
  version: number;
}

/** Streams whose folded state is kept; a tool's state holds every version's spec, so the bound is by count. */
export const STREAM_STATE_CACHE_SIZE = 512;

/**
 * Folded stream states, least recently used dropped first. A stream is append-only, so a state
 * folded up to version n stays true of its first n events for ever: the next command reads only
 * the events from n on (usually none or one) instead of the whole history. The profile of a
 * publish showed reading and folding whole histories as the largest cost of the registry's own.
 * Deciders keep state immutable (evolve returns new objects), so a kept state is never changed.
 */
export class StreamStateCache {
  private readonly entries = new Map<string, { decider: unknown; loaded: Loaded<unknown> }>();

  constructor(private readonly limit = STREAM_STATE_CACHE_SIZE) {}

  /** The kept state, or the decider's initial state at version 0. */
  get<S>(decider: Decider<unknown, unknown, S>, streamId: string): Loaded<S> {
    const entry = this.entries.get(streamId);
    // One stream is always folded by one decider; a different one starts over rather than trust a foreign state.
    if (!entry || entry.decider !== decider) return { state: decider.initialState(), version: 0 };
    this.entries.delete(streamId);
    this.entries.set(streamId, entry);
    return entry.loaded as Loaded<S>;
  }

  set<S>(decider: Decider<unknown, unknown, S>, streamId: string, loaded: Loaded<S>): void {
    this.entries.delete(streamId);
    this.entries.set(streamId, { decider, loaded });
    keepWithin(this.entries, this.limit);
  }

  get size(): number {
    return this.entries.size;
  }
}
