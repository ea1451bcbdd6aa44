import { Inject, Injectable } from '@nestjs/common';
import type { EventEnvelope, RegistryEvent } from '@estate/events';
import { upcast } from '@estate/events';
import { registryError } from '../domain/registry.errors';
import { ConcurrencyConflict, EventTooLarge, type AppendMeta, type EventStore, type NewEvent } from '../store/event-store.port';
import type { Decider } from '../domain/decider';
import type { Outcome } from './outcome';
import { EVENT_STORE } from './registry.tokens';
import { StreamStateCache, type Loaded } from './stream-state.cache';

/** Conflicts are rare (two writers on one tool); past this many the caller hears 409 and retries itself. */
const MAX_ATTEMPTS = 4;

export interface HandleOptions {
  /** Decide and answer, store nothing: what `check` needs. */
  dryRun?: boolean;
}

/** What a command decided, and the state it decided on: what a use case reports against (publish's compat report). */
export interface Decided<E, S> {
  events: E[];
  state: S;
}

/** `state` advanced by the events read after it. */
function fold<C, E, S>(decider: Decider<C, E, S>, state: S, newer: readonly EventEnvelope[]): S {
  return evolveAll(decider, state, newer.map((envelope) => asRegistryEvent(envelope) as E));
}

function evolveAll<C, E, S>(decider: Decider<C, E, S>, state: S, events: readonly E[]): S {
  return decider.evolveAll ? decider.evolveAll(state, events) : events.reduce((folded, event) => decider.evolve(folded, event), state);
}

/** Stored events are read at the version the code knows today (upcasters), never as they were written. */
function asRegistryEvent(envelope: EventEnvelope): RegistryEvent {
  const current = upcast(envelope);
  return { type: current.type, version: current.version, data: current.data } as RegistryEvent;
}

/**
 * Runs any decider: load the stream, decide, append at the version that was read (the store's
 * `update`); a writer that appended in between means deciding again on the newer state, a
 * bounded number of times. Use cases differ only in their decider, stream and command.
 */
@Injectable()
export class CommandHandler {
  private readonly maxAttempts = MAX_ATTEMPTS;
  private readonly states = new StreamStateCache();

  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async handle<C, E extends NewEvent, S>(
    decider: Decider<C, E, S>, streamId: string, command: C, meta: AppendMeta, options: HandleOptions = {},
  ): Promise<Outcome<Decided<E, S>>> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        const known = this.states.get(decider, streamId);
        let appended: Loaded<S> | undefined;
        // A state kept from before is decided on without reading first, on the first attempt only:
        // a conflict means someone else wrote, so the retry reads.
        const trusted = attempt === 1 && known.version > 0;
        const outcome = await this.store.update<Outcome<Decided<E, S>>>(streamId, known.version, (newer) => {
          const loaded = this.advance(decider, streamId, known, newer);
          const decision = decider.decide(command, loaded.state);
          if (!decision.ok) return { append: [], result: decision };
          const append = options.dryRun ? [] : decision.events;
          if (append.length > 0) appended = { state: evolveAll(decider, loaded.state, append), version: loaded.version + append.length };
          return { append, result: { ok: true, value: { events: decision.events, state: loaded.state } } };
        }, meta, trusted);
        // Reached only once the append is stored: what it appended is known without reading it back.
        if (appended) this.states.set(decider, streamId, appended);
        return outcome;
      } catch (error) {
        if (error instanceof EventTooLarge) {
          return { ok: false, error: registryError('EVENT_TOO_LARGE', `${error.message}: make the contract smaller`, { bytes: error.bytes, limit: error.limit }) };
        }
        if (!(error instanceof ConcurrencyConflict)) throw error;
        if (attempt >= this.maxAttempts) return { ok: false, error: registryError('CONCURRENCY_CONFLICT', `${error.streamId} kept changing; try again`) };
      }
    }
  }

  /** A stream's current state, for a use case that reads one aggregate to command another. */
  async load<C, E, S>(decider: Decider<C, E, S>, streamId: string): Promise<Loaded<S>> {
    const known = this.states.get(decider, streamId);
    return this.advance(decider, streamId, known, await this.store.readStream(streamId, known.version));
  }

  /** What was known plus what was read after it, kept for the next command on the stream. */
  private advance<C, E, S>(decider: Decider<C, E, S>, streamId: string, known: Loaded<S>, newer: readonly EventEnvelope[]): Loaded<S> {
    if (newer.length === 0) return known;
    const loaded = { state: fold(decider, known.state, newer), version: known.version + newer.length };
    this.states.set(decider, streamId, loaded);
    return loaded;
  }

  /** Every stream under `prefix` (`tool:`), in name order. */
  streams(prefix: string): Promise<string[]> {
    return this.store.listStreams(prefix);
  }
}
