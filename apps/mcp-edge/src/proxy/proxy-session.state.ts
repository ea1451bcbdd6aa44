import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import type { LoggingLevel, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '@estate/contracts';
import type { InputAsker } from '../mcp/parked-input.relay';
import type { EdgeSession } from '../sessions/edge-session';
import { levelWanted } from '../sessions/log-level';

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
 * and template (URIs pass through unchanged, so attribution is by who listed them), the log
 * level the client asked for, and which upstreams it has reached.
 */
export class ProxySessionState {
  readonly resources = new Map<string, string>();
  readonly templates = new Map<string, { template: UriTemplate; server: string }>();
  readonly reached = new Set<string>();

  constructor(readonly session: EdgeSession, readonly server: Server) {}

  rememberResource(uri: string, server: string): void {
    if (!this.resources.has(uri)) this.resources.set(uri, server);
  }

  rememberTemplate(raw: string, server: string): void {
    if (this.templates.has(raw)) return;
    try {
      this.templates.set(raw, { template: new UriTemplate(raw), server });
    } catch {
      // An upstream template we cannot parse is listed as-is but never used for attribution.
    }
  }

  /** The server that listed this URI, or whose template matches it. */
  serverOf(uri: string): string | undefined {
    const listed = this.resources.get(uri);
    if (listed !== undefined) return listed;
    for (const { template, server } of this.templates.values()) if (template.match(uri)) return server;
    return undefined;
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
    call.state?.reached.add(call.server);
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
