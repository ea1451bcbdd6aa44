import type { Decision } from './registry.errors';

/**
 * An aggregate's pure rules (emmett's decider): the state before any event, how an event changes
 * it, and which events a command yields in a state. The command handler runs any of them.
 */
export interface Decider<Command, Event, State> {
  initialState(): State;
  evolve(state: State, event: Event): State;
  decide(command: Command, state: State): Decision<Event>;
}
