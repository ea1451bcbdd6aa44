import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { LoggingLevel, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '@estate/contracts';
import type { InputAsker } from '../mcp/parked-input.relay';
import type { EdgeSession } from '../sessions/edge-session';
import { levelWanted } from '../sessions/log-level';
import { ResourceAttribution } from './resource.attribution';

export type HandlerExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export { severity } from '../sessions/log-level';

/**
 * A downstream request that is waiting on an upstream: the only thing an upstream's request may be
 * attributed to. A session's call carries its state and the way back to its client; a 2026-07-28
 * request has no session and no stream, so it carries who sent it and an asker that turns the
 * upstream's request into an input_required answer to it (without one, the request is refused).
 */
export interface InFlightCall {
  state?: ProxySessionState;
  principal: Principal;
  sessionId?: string;
  server: string;
  tool?: string;
  sendRequest?: HandlerExtra['sendRequest'];
  sendNotification?: HandlerExtra['sendNotification'];
  asker?: InputAsker;
}

/**
 * What the proxy remembers about one downstream session: which server listed each resource URI
 * and template (its ResourceAttribution lasts as long as the session) and the log level the client
 * asked for.
 */
export class ProxySessionState extends ResourceAttribution {
  constructor(readonly session: EdgeSession, readonly server: Server) {
    super();
  }

  /** Kept on the session: the tools/call pipeline's own messages (deprecation warnings) honour it too. */
  get logLevel(): LoggingLevel | undefined {
    return this.session.logLevel;
  }

  set logLevel(level: LoggingLevel | undefined) {
    this.session.logLevel = level;
  }

  wantsLog(level: LoggingLevel): boolean {
    return levelWanted(level, this.logLevel);
  }
}

/** Downstream requests in flight per upstream server. */
export class InFlightRegistry {
  private readonly byServer = new Map<string, Set<InFlightCall>>();

  async around<T>(call: InFlightCall, run: () => Promise<T>): Promise<T> {
    const calls = this.byServer.get(call.server) ?? new Set<InFlightCall>();
    this.byServer.set(call.server, calls);
    calls.add(call);
    try {
      return await run();
    } finally {
      calls.delete(call);
      if (calls.size === 0) this.byServer.delete(call.server);
    }
  }

  of(server: string): InFlightCall[] {
    return [...(this.byServer.get(server) ?? [])];
  }
}
