import { stableStringify } from '@estate/contracts';
import type { ServerRegistered, ServerRegisteredData } from '@estate/events';
import type { Decider } from './decider';
import { registryError, type Decision } from './registry.errors';

export type ServerState = { status: 'unregistered' } | { status: 'registered'; server: ServerRegisteredData };

/** Who may register is the route's business (estate:admin, declared on it); the decider judges the definition. */
export interface RegisterServer {
  type: 'RegisterServer';
  server: ServerRegisteredData;
}

export const initialServerState = (): ServerState => ({ status: 'unregistered' });

export function serverStreamId(name: string): string {
  return `server:${name}`;
}

/** Registering the same definition twice changes nothing; a different one under a taken name is refused. */
export function decideServer(command: RegisterServer, state: ServerState): Decision<ServerRegistered> {
  const { server } = command;
  if (server.namespace !== '' && server.namespace !== server.name) {
    return {
      ok: false,
      error: registryError('NAMESPACE_FORBIDDEN', `namespace must be the server name "${server.name}" or empty`),
    };
  }
  if (state.status === 'registered') {
    // Stored payloads come back from jsonb with keys reordered: compare canonical forms.
    if (stableStringify(state.server) === stableStringify(server)) return { ok: true, events: [] };
    return {
      ok: false,
      error: registryError('SERVER_ALREADY_REGISTERED', `server "${server.name}" is already registered with a different definition`),
    };
  }
  return { ok: true, events: [{ type: 'ServerRegistered', version: 2, data: server }] };
}

export function evolveServer(state: ServerState, event: ServerRegistered): ServerState {
  return event.type === 'ServerRegistered' ? { status: 'registered', server: event.data } : state;
}

export const serverDecider: Decider<RegisterServer, ServerRegistered, ServerState> = {
  initialState: initialServerState, evolve: evolveServer, decide: decideServer,
};
