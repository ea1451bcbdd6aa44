import type { Decision } from './registry.errors';

/**
 * An aggregate's pure rules (emmett's decider): the state before any event, how an event changes
 * it, and which events a command yields in a state. The command handler runs any of them.
 */
export interface Decider<Command, Event, State> {
  initialState(): State;
  evolve(state: State, event: Event): State;
  /** The state after several events, when that costs less than evolving one at a time (a state that copies a collection per event). */
  evolveAll?(state: State, events: readonly Event[]): State;
  decide(command: Command, state: State): Decision<Event>;
}
