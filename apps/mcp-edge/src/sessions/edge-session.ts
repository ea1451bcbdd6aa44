import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ElicitResultSchema, InitializeRequestSchema, type LoggingLevel } from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '@estate/contracts';
import type { Pins } from '@estate/catalog';
import type { HttpSessionTransport } from '../http/streamable-http.transport';
import type { CallerContext, ConfirmAnswer, ConfirmQuestion, Confirmer } from '../mcp/caller.context';
import type { CallContext } from '../mcp/tool-call.pipeline';
import type { ClientInfo } from './lazy-session.server';
import type { SessionEventStore } from './memory-event.store';
import { negotiateProtocolVersion, SessionLifecycle, sessionRevision, type JsonRpcRequest, type SessionRevision } from '@estate/protocol';

/**
 * One downstream MCP session, with its own SDK server (an HTTP session's is built when first needed). It belongs to the subject and tenant that
 * opened it; `principal` holds the rights of its most recent request (requests are judged by
 * their own token, see request-rights.ts), which is what decides whom a catalog change concerns.
 */
export class EdgeSession implements CallerContext {
  readonly era = 'session' as const;
  /** When its latest request arrived or its latest request or stream ended: idle time counts from then. */
  lastSeen: number;
  protocolVersion?: string;
  /** What it is sent, shaped for its negotiated revision (the newest until initialize says otherwise). */
  revision: SessionRevision = sessionRevision(undefined);
  pins: Pins = {};
  /** Open GET streams: a session that is listening is not idle. */
  openStreams = 0;
  /** A stdio session: it lasts as long as its client keeps stdin open, quiet or not, and ends with the process. */
  endsWithInput = false;
  /**
   * When the token of its most recent request expires (ms since the epoch; undefined: it does not).
   * From then on the session is sent nothing unprompted until a request with a valid token arrives.
   */
  rightsUntil?: number;
  readonly lifecycle = new SessionLifecycle();
  server!: Server;
  /** The SDK transport the server is connected to (Streamable HTTP or stdio). */
  transport!: Transport;
  /** Set for HTTP sessions: the endpoint hands requests to it. */
  http?: HttpSessionTransport;
  /** What an HTTP session keeps for clients that reconnect with Last-Event-ID. */
  events?: SessionEventStore;
  /** What the client asked for with logging/setLevel; undefined until it asks (then every level is sent). */
  logLevel?: LoggingLevel;
  /** The params of the client's initialize, read (once) when the client's capabilities are first asked for. */
  private initializeParams?: Record<string, unknown>;
  private clientRead?: ClientInfo;
  /** Deprecated versions (`tool@version`) this session has been warned about: the warning comes once. */
  readonly deprecationWarnings = new Set<string>();
  private listChangedPending = false;

  constructor(readonly id: string, public principal: Principal, now: number) {
    this.lastSeen = now;
  }

  get sessionId(): string {
    return this.id;
  }

  /**
   * What the client said of itself in initialize, as the SDK's schema reads it: the schema fills
   * in what an older client leaves out (an empty `elicitation` means form elicitation), and an SDK
   * server built after the answer must see exactly what its own initialize handler would have.
   */
  get client(): ClientInfo | undefined {
    if (this.clientRead === undefined && this.initializeParams !== undefined) {
      const parsed = InitializeRequestSchema.safeParse({ method: 'initialize', params: this.initializeParams });
      this.clientRead = parsed.success ? { capabilities: parsed.data.params.capabilities, clientInfo: parsed.data.params.clientInfo } : {};
    }
    return this.clientRead;
  }

  /**
   * A session asks its client with an elicitation request when the client declared it can answer
   * one and its revision has elicitation/create (2025-06-18 on); otherwise a confirmation token goes out.
   */
  readonly confirmer: Confirmer = {
    canAsk: () => Boolean(this.server.getClientCapabilities()?.elicitation) && this.revision.hasRequest('elicitation/create'),
    ask: (question, context) => this.elicitConfirmation(question, context),
  };

  private async elicitConfirmation(question: ConfirmQuestion, context: CallContext): Promise<ConfirmAnswer> {
    const params = this.revision.elicitation({ mode: 'form', message: question.message, requestedSchema: { type: 'object' as const, properties: {} } });
    // A client that declared only URL elicitation cannot be asked with a form (elicitInput refused that too).
    if (!params || !this.server.getClientCapabilities()?.elicitation?.form) return 'failed';
    try {
      // Not elicitInput: it adds `mode`, which 2025-06-18 does not have. An empty schema leaves no content to check.
      const answer = await this.server.request({ method: 'elicitation/create', params }, ElicitResultSchema, { relatedRequestId: context.requestId, signal: context.signal });
      return answer.action;
    } catch {
      // No answer from the client (it failed or vanished): the token route takes over.
      return 'failed';
    }
  }

  /** Whether a request's principal may use this session: same subject, same tenant. */
  ownedBy(principal: Principal): boolean {
    return this.principal.id === principal.id && this.principal.tenant === principal.tenant;
  }

  /** A request of the owner arrived: its rights, and their expiry, become the session's current ones. */
  admit(principal: Principal, now: number, rightsUntil?: number): void {
    this.principal = principal;
    this.lastSeen = now;
    this.rightsUntil = rightsUntil;
  }

  /** A request of it is unanswered, a stream of it is open, or it is stdio's: it is not idle, however old `lastSeen` is. */
  get inUse(): boolean {
    return this.endsWithInput || this.openStreams > 0 || this.http?.inUse === true;
  }

  /** Whether the rights of the latest request still hold, so the session may be told of changes. */
  mayNotify(now: number): boolean {
    return this.rightsUntil === undefined || now < this.rightsUntil;
  }

  /**
   * Settles the version for an admitted initialize request and returns the request to hand to
   * the SDK. The SDK server would echo 2024-10-07, which it still knows and we do not speak, so
   * the request it sees carries the version we chose: its answer and `protocolVersion` agree.
   */
  acceptInitialize(request: JsonRpcRequest): JsonRpcRequest {
    const params = request.params ?? {};
    const version = negotiateProtocolVersion(params.protocolVersion);
    this.protocolVersion = version;
    this.revision = sessionRevision(version);
    this.initializeParams = params;
    this.lifecycle.onInitializeAnswered(version);
    return { ...request, params: { ...params, protocolVersion: version } };
  }

  /** Messages of one SSE stream kept for replay (the standalone GET stream is `_GET_stream`). */
  storedEvents(streamId: string): number {
    return this.events?.count(streamId) ?? 0;
  }

  /** Several catalog changes in one tick become one notification. */
  /** True when a notification is now due; false when one already is, or the session cannot take one. */
  notifyListChanged(): boolean {
    if (this.listChangedPending || this.lifecycle.phase !== 'operating') return false;
    this.listChangedPending = true;
    setImmediate(() => {
      this.listChangedPending = false;
      void this.server.sendToolListChanged().catch(() => undefined);
    });
    return true;
  }

  async close(): Promise<void> {
    this.lifecycle.close?.();
    await this.transport.close().catch(() => undefined);
    await this.server.close().catch(() => undefined);
  }
}
