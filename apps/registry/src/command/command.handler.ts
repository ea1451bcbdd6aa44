import { Inject, Injectable } from '@nestjs/common';
import type { EventEnvelope, RegistryEvent } from '@estate/events';
import { upcast } from '@estate/events';
import { registryError } from '../domain/registry.errors';
import { ConcurrencyConflict, EventTooLarge, type AppendMeta, type EventStore, type NewEvent } from '../store/event-store.port';
import type { Decider } from '../domain/decider';
import type { Outcome } from './outcome';
import { EVENT_STORE } from './registry.tokens';

/** Conflicts are rare (two writers on one tool); past this many the caller hears 409 and retries itself. */
const MAX_ATTEMPTS = 4;

export interface HandleOptions {
  /** Decide and answer, store nothing: what `check` needs. */
  dryRun?: boolean;
}

/** The state of one stream as a decider sees it, and how many events built it. */
export interface Loaded<State> {
  state: State;
  version: number;
}

export function fold<C, E, S>(decider: Decider<C, E, S>, history: readonly EventEnvelope[]): S {
  return history.reduce((state, envelope) => decider.evolve(state, asRegistryEvent(envelope) as E), decider.initialState());
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

  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async handle<C, E extends NewEvent, S>(
    decider: Decider<C, E, S>, streamId: string, command: C, meta: AppendMeta, options: HandleOptions = {},
  ): Promise<Outcome<E[]>> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.store.update<Outcome<E[]>>(streamId, (history) => {
          const decision = decider.decide(command, fold(decider, history));
          if (!decision.ok) return { append: [], result: decision };
          return { append: options.dryRun ? [] : decision.events, result: { ok: true, value: decision.events } };
        }, meta);
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
    const history = await this.store.readStream(streamId);
    return { state: fold(decider, history), version: history.length };
  }

  /** Every stream under `prefix` (`tool:`), in name order. */
  streams(prefix: string): Promise<string[]> {
    return this.store.listStreams(prefix);
  }
}
