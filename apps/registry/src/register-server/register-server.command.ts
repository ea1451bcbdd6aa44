import type { ServerRegisteredData } from '@estate/events';
import type { RegisterServer } from '../domain/server.decider';

export type { RegisterServer };

/** A registration whose every field the HTTP parser already checked, as the server decider's command. */
export function registerServer(server: ServerRegisteredData): RegisterServer {
  return { type: 'RegisterServer', server };
}
