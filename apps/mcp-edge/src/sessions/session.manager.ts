import { randomUUID } from 'node:crypto';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolRequestSchema, InitializeRequestSchema, ListToolsRequestSchema, type CallToolResult, type InitializeResult, type ListToolsResult, type ServerCapabilities, type ServerNotification, type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '@estate/contracts';
import type { Logger } from '@estate/platform';
import type { JsonRpcRequest, JsonRpcResponse } from '@estate/protocol';
import { listChangedFor, type CatalogChange, type CatalogReplica } from '../catalog/catalog.replica';
import { pinsFromMeta, type CallParams, type ToolCallPipeline } from '../mcp/tool-call.pipeline';
import { NodeStreamableHttpTransport } from '../http/streamable-http.transport';
import { listToolPage, pageForRevision } from '../mcp/tool-list';
import { WireError } from '../mcp/wire-error';
import { EdgeSession } from './edge-session';
import { SessionEventStore } from './memory-event.store';
import { LazySessionServer } from './lazy-session.server';
import { recordDirectHandler, SessionFastPath, type DirectHandler } from './session.fast-path';
import { checkRequestParams } from './request-params.check';
import { rightsOf } from './request-rights';
import { sharedSchemaValidator } from './shared-schema.validator';

export const SERVER_INFO = { name: 'estate-edge', version: '0.1.0' };

/**
 * The initialize answer the SDK server gives (server/index.js `_oninitialize`), for the fast path:
 * the version acceptInitialize settled, and only the capabilities that revision has.
 */
function initializeResult(session: EdgeSession, capabilities: ServerCapabilities): Record<string, unknown> {
  return { protocolVersion: session.revision.version, capabilities: session.revision.serverCapabilities(capabilities), serverInfo: SERVER_INFO };
}

type HandlerExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** Adds handlers (and the capabilities they need) to every session's server: resources, prompts, … */
export interface ServerExtension {
  capabilities?: ServerCapabilities;
  register(server: Server, session: EdgeSession): void;
  /**
   * Runs a session's tools/call in place of the bare pipeline call (the proxy adds progress and
   * the in-flight record upstream requests are attributed to). The session manager keeps the one
   * tools/call handler; the first extension with this runs the call.
   */
  callTool?(session: EdgeSession, params: CallParams, extra: HandlerExtra): Promise<CallToolResult>;
}

export interface SessionLimits {
  /** A session with no request, none in flight and no open stream for this long is closed. */
  idleMs: number;
  /** Open HTTP sessions one subject of one tenant may hold at once. */
  maxPerPrincipal: number;
}

/** Why an HTTP session was not opened, and when trying again can work. */
export interface SessionRefusal {
  limit: number;
  retryAfterSeconds: number;
}

/** Sessions are counted per subject and tenant: the same `sub` in two tenants is two principals. */
function ownerKey(principal: Principal): string {
  return JSON.stringify([principal.tenant ?? null, principal.id]);
}

/** Every open downstream session, its idle expiry, and who must hear about a catalog change. */
export class SessionManager {
  private readonly sessions = new Map<string, EdgeSession>();
  private readonly byOwner = new Map<string, Set<string>>();
  private sweeper?: NodeJS.Timeout;
  private serverCapabilities?: ServerCapabilities;
  private readonly idleMs: number;

  constructor(
    private readonly replica: CatalogReplica,
    private readonly pipeline: ToolCallPipeline,
    private readonly logger: Logger,
    private readonly limits: SessionLimits,
    private readonly clock: () => number = Date.now,
    private readonly extensions: ServerExtension[] = [],
  ) {
    this.idleMs = limits.idleMs;
    replica.onChange((changes, log) => this.onCatalogChange(changes, log));
  }

  /** Sweeps four times per idle period, so a session outlives its idle time by at most a quarter of it. */
  start(): void {
    this.sweeper = setInterval(() => void this.sweep(), Math.min(30000, Math.max(50, this.idleMs / 4)));
    this.sweeper.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  /**
   * The HTTP session with this id, if it belongs to this principal's subject and tenant; otherwise
   * nothing, whichever the reason (so an id guessed or stolen from another principal looks
   * unknown). The request's rights become the session's current ones. Sessions of other
   * transports (stdio) are never reachable over HTTP. `rightsUntil`: when the request's token
   * expires (ms since the epoch), after which the session is sent nothing unprompted.
   */
  find(id: string, principal: Principal, rightsUntil?: number): EdgeSession | undefined {
    const session = this.sessions.get(id);
    if (!session?.http || !session.ownedBy(principal)) return undefined;
    session.admit(principal, this.clock(), rightsUntil);
    return session;
  }

  /**
   * A Streamable HTTP session; the endpoint feeds it requests through `session.http`. Refused
   * when the principal already holds its limit: sessions cost memory and an SDK server each.
   */
  open(principal: Principal, initializeParams: Record<string, unknown> | undefined, rightsUntil?: number): EdgeSession | SessionRefusal {
    const held = this.byOwner.get(ownerKey(principal));
    if (held && held.size >= this.limits.maxPerPrincipal) return { limit: this.limits.maxPerPrincipal, retryAfterSeconds: this.retryAfter(held) };
    const session = new EdgeSession(randomUUID(), principal, this.clock());
    session.rightsUntil = rightsUntil;
    session.pins = pinsFromMeta(initializeParams?._meta);
    session.events = new SessionEventStore();
    const http = new NodeStreamableHttpTransport({
      sessionId: session.id,
      eventStore: session.events,
      onsessionclosed: (id) => this.remove(id),
      mayNotify: () => session.mayNotify(this.clock()),
      onSettled: () => {
        session.lastSeen = this.clock();
      },
    });
    session.http = http;
    session.transport = http;
    const handlers = new Map<string, DirectHandler>();
    const lazy = new LazySessionServer({
      build: () => this.newServer(),
      transport: http,
      client: () => session.client,
      registered: (schema, handler) => recordDirectHandler(handlers, schema, handler as DirectHandler),
    });
    session.server = lazy.server;
    this.register(session.server, session);
    this.track(session);
    http.direct = new SessionFastPath(session.server, handlers, (message) => http.send(message), session.id, {
      initializeResult: () => initializeResult(session, this.capabilities),
      ensureServer: () => lazy.ensure(),
      get serverBuilt() {
        return lazy.built;
      },
    });
    return session;
  }

  /** A session over any other SDK transport (stdio). Pins come from the first initialize. */
  attach(principal: Principal, transport: Transport): EdgeSession {
    return this.connect(new EdgeSession(randomUUID(), principal, this.clock()), transport);
  }

  /**
   * The answer to a request of `session` whose params do not fit its method (null: they fit),
   * given before the SDK would parse them and answer -32603 with its validator's dump. A tools/call
   * so refused pays and is recorded as the pipeline's own refusals are. `authInfo`: the request's rights.
   */
  answerUnfit(session: EdgeSession, request: JsonRpcRequest, authInfo?: AuthInfo): JsonRpcResponse | null {
    const invalid = checkRequestParams(request);
    if (!invalid) return null;
    if (request.method !== 'tools/call') return { jsonrpc: '2.0', id: request.id, error: invalid };
    try {
      return { jsonrpc: '2.0', id: request.id, result: this.pipeline.refuseUnfit(session, request.params, new WireError(invalid.code, invalid.message), { authInfo }) };
    } catch (error) {
      if (!(error instanceof WireError)) throw error;
      return { jsonrpc: '2.0', id: request.id, error: { code: error.code, message: error.message, ...(error.data === undefined ? {} : { data: error.data }) } };
    }
  }

  /** Seconds until the first of these sessions can expire for idleness (one in use cannot). */
  private retryAfter(ids: Set<string>): number {
    const now = this.clock();
    let soonest = now + this.idleMs;
    for (const id of ids) {
      const session = this.sessions.get(id);
      if (session && !session.inUse) soonest = Math.min(soonest, session.lastSeen + this.idleMs);
    }
    return Math.max(1, Math.ceil((soonest - now) / 1000));
  }

  /**
   * A stdio session: its SDK server is built and connected at once and takes every message. Its
   * client cannot open another one, so idleness never closes it: it ends when stdin does.
   */
  private connect(session: EdgeSession, transport: Transport): EdgeSession {
    session.server = this.newServer();
    // The SDK's own initialize handler would offer every capability whatever the revision: this
    // one gives HTTP's answer, and keeps what the SDK's keeps (lazy-session.server.ts sets the same fields).
    session.server.setRequestHandler(InitializeRequestSchema, async (request) => {
      Object.assign(session.server, { _clientCapabilities: request.params.capabilities, _clientVersion: request.params.clientInfo });
      return initializeResult(session, this.capabilities) as InitializeResult;
    });
    session.transport = transport;
    session.endsWithInput = true;
    this.register(session.server, session);
    this.track(session);
    void session.server.connect(transport);
    return session;
  }

  private track(session: EdgeSession): void {
    this.sessions.set(session.id, session);
    const key = ownerKey(session.principal);
    this.byOwner.set(key, (this.byOwner.get(key) ?? new Set()).add(session.id));
  }

  private readonly closedListeners: Array<(id: string) => Promise<void>> = [];
  private readonly fanOutListeners: Array<(sessions: number) => void> = [];

  /** Hears how many sessions each catalog change notified (the metrics). */
  onListChanged(listener: (sessions: number) => void): void {
    this.fanOutListeners.push(listener);
  }

  /** Runs after a session closed (DELETE, idle expiry, shutdown): e.g. its own upstream sessions go too. */
  onClosed(listener: (id: string) => Promise<void>): void {
    this.closedListeners.push(listener);
  }

  async remove(id: string): Promise<void> {
    const session = this.sessions.get(id);
    if (!session) return;
    this.sessions.delete(id);
    const key = ownerKey(session.principal);
    const held = this.byOwner.get(key);
    held?.delete(id);
    if (held?.size === 0) this.byOwner.delete(key);
    await session.close();
    for (const listener of this.closedListeners) await listener(id).catch(() => undefined);
  }

  private readonly closingListeners: Array<() => void> = [];

  /** Runs when the edge shuts down, before the sessions close: other long-lived streams end then too. */
  onClosingAll(listener: () => void): void {
    this.closingListeners.push(listener);
  }

  async closeAll(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    for (const listener of this.closingListeners) listener();
    await Promise.allSettled([...this.sessions.keys()].map((id) => this.remove(id)));
  }

  /** Every session's server offers the same capabilities: tools, and what the extensions add. */
  private get capabilities(): ServerCapabilities {
    if (!this.serverCapabilities) {
      const capabilities: ServerCapabilities = { tools: { listChanged: true } };
      for (const extension of this.extensions) Object.assign(capabilities, extension.capabilities);
      this.serverCapabilities = capabilities;
    }
    return this.serverCapabilities;
  }

  private newServer(): Server {
    return new Server(SERVER_INFO, { capabilities: this.capabilities, jsonSchemaValidator: sharedSchemaValidator });
  }

  /**
   * tools/list and tools/call (which HTTP sessions' fast path runs), each answered in the shape of
   * the session's revision, then each extension's handlers.
   */
  private register(server: Server, session: EdgeSession): void {
    server.setRequestHandler(ListToolsRequestSchema, async (request, extra) => {
      const pins = { ...session.pins, ...pinsFromMeta(request.params?._meta) };
      return pageForRevision(listToolPage(this.replica.all(), rightsOf(session, extra), pins, request.params?.cursor), session.revision) as ListToolsResult;
    });
    const runner = this.extensions.find((extension) => extension.callTool !== undefined);
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const result = runner?.callTool ? await runner.callTool(session, request.params, extra) : await this.pipeline.call(session, request.params, extra);
      return session.revision.callResult(result);
    });
    for (const extension of this.extensions) extension.register(server, session);
  }

  /**
   * Notify exactly the sessions for which a changed tool resolves to a different version (or
   * none), judged by the rights of each session's most recent request; a session whose latest
   * token has expired is not told.
   */
  private onCatalogChange(changes: CatalogChange[], log: Logger): void {
    let notified = 0;
    const now = this.clock();
    for (const session of this.sessions.values()) {
      if (!session.mayNotify(now)) continue;
      if (listChangedFor(changes, session.principal, session.pins) && session.notifyListChanged()) notified += 1;
    }
    for (const listener of this.fanOutListeners) listener(notified);
    log.info({ tools: changes.slice(0, 20).map((c) => c.name), changed: changes.length, notified }, `catalog changed; tools/list_changed sent to ${notified} sessions`);
  }

  private async sweep(): Promise<void> {
    const cutoff = this.clock() - this.idleMs;
    for (const [id, session] of this.sessions) {
      // A call in flight or an open stream is activity: the idle clock starts when the last one ends.
      if (session.lastSeen < cutoff && !session.inUse) {
        this.logger.debug({ session: id }, 'closing idle session');
        await this.remove(id);
      }
    }
  }
}
