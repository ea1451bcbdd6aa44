import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { EventStore } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage, type MessageExtraInfo, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import { rpcError, SESSION_NOT_FOUND } from './json-rpc.reply';
import { sseFrame, SseStream } from './sse.stream';
import { isJsonRpcResponse as isResponse } from '@estate/protocol';
import { CallCancelled } from '../upstream/call.cancellation';

/** The id the SDK gives the standalone GET stream; the event store keys replay by it. */
export const STANDALONE_STREAM = '_GET_stream';
/** The SDK's bound on a batch: more entries in one POST are refused before any runs. */
const MAX_BATCH = 100;
/** Priming events carry empty data, which clients before this revision choke on. */
const PRIMING_SINCE = '2025-11-25';

/** What the endpoint hands a session's HTTP transport once its own checks have passed. */
export interface HttpSessionTransport {
  /**
   * `authInfo` reaches the handler of every message in the body (see sessions/request-rights.ts).
   * Resolves false when the request was refused outright: a POST's messages then never ran.
   */
  handleRequest(req: IncomingMessage, res: ServerResponse, parsedBody?: unknown, authInfo?: AuthInfo): Promise<boolean>;
  /** A request is unanswered or a stream is open: the session is in use, however long ago the request came. */
  readonly inUse: boolean;
}

export interface NodeStreamableHttpOptions {
  sessionId: string;
  eventStore: EventStore;
  /** Called on DELETE, before the transport closes. */
  onsessionclosed?: (sessionId: string) => void | Promise<void>;
  /**
   * False while the session may not be sent anything unprompted (its latest token has expired):
   * messages for the GET stream are then dropped, not kept for a later replay.
   */
  mayNotify?: () => boolean;
  /** Called when a request is answered or a stream ends: the session's idle time counts from then. */
  onSettled?: () => void;
}

/** Takes some requests off the SDK server (sessions/session.fast-path.ts); it answers them through `send`. */
export interface DirectDispatch {
  /** True when the message was taken; false hands it on to `onmessage`. */
  take(message: JSONRPCMessage, extra: MessageExtraInfo): boolean;
  /** The session ended; `reason` says how, for the calls it cuts short. */
  close(reason?: CallCancelled): void;
}

/** The requests one POST carried: its stream ends once each of them has been answered. */
interface PostRoute {
  unanswered: Set<RequestId>;
}

const PLAIN_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);

/**
 * The request or notification nearly every POST carries, in a shape the SDK schema admits as it
 * is: `jsonrpc` 2.0, a string method, a string or safe-integer id (or none), params an object
 * without `_meta`, no other key. Anything else (responses, `_meta`, odd ids) goes to the schema.
 */
function plainMessage(entry: unknown): JSONRPCMessage | undefined {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return undefined;
  const message = entry as Record<string, unknown>;
  if (message.jsonrpc !== '2.0' || typeof message.method !== 'string') return undefined;
  for (const key in message) if (!PLAIN_KEYS.has(key)) return undefined;
  if ('id' in message && typeof message.id !== 'string' && !Number.isSafeInteger(message.id)) return undefined;
  const params = message.params;
  if (params === undefined) return entry as JSONRPCMessage;
  if (typeof params !== 'object' || params === null || Array.isArray(params) || '_meta' in params) return undefined;
  return entry as JSONRPCMessage;
}

/**
 * The SDK's own message schema, as its transport applied it: the edge's inspector admits some
 * shapes (a `_meta` that is not an object, say) that the SDK protocol layer would drop unanswered.
 * The plain shapes skip the schema (it was a visible share of the edge's CPU per call).
 */
function parseMessages(entries: unknown[]): JSONRPCMessage[] | undefined {
  const messages: JSONRPCMessage[] = [];
  for (const entry of entries) {
    const plain = plainMessage(entry);
    if (plain) {
      messages.push(plain);
      continue;
    }
    const parsed = JSONRPCMessageSchema.safeParse(entry);
    if (!parsed.success) return undefined;
    messages.push(parsed.data);
  }
  return messages;
}

/** Answers a request the transport refuses outright; false, for `handleRequest` to resolve with. */
function refused(res: ServerResponse, status: number, error: { code: number; message: string }): false {
  rpcError(res, status, null, error);
  return false;
}

function isRequest(message: JSONRPCMessage): boolean {
  return 'id' in message && 'method' in message;
}

/**
 * Streamable HTTP for one session, on node:http objects. The endpoint has already checked Origin,
 * Host, token, owner, headers, Accept and the message shapes; this class only routes: every POST
 * with requests gets its own SSE stream that ends after its last answer, server messages tied to
 * a request go on that request's stream (opened with its first frame, so a prompt answer is one
 * write), the rest on the one GET stream, and every frame is kept
 * in the event store so a client can resume with Last-Event-ID. A stream a GET opens ends when
 * that GET's token expires, and while the session's latest token is expired nothing unprompted is
 * sent or kept (`mayNotify`). A session's tools/call and
 * tools/list go to `direct` rather than the SDK server (sessions/session.fast-path.ts); their
 * answers come back through `send` like any other. It replaces the SDK transport,
 * whose per-request conversion to Web Request/ReadableStream objects dominated the edge's CPU.
 */
export class NodeStreamableHttpTransport implements Transport, HttpSessionTransport {
  readonly sessionId: string;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  /** Set once the session's server is connected: tools/call and tools/list go there, not to `onmessage`. */
  direct?: DirectDispatch;
  private readonly live = new Map<string, SseStream>();
  private readonly routes = new Map<string, PostRoute>();
  private readonly streamOf = new Map<RequestId, string>();
  private readonly store: EventStore;
  private streamCount = 0;
  private protocolVersion?: string;
  private closed = false;
  /** Set by a DELETE, so that the calls it cuts short are recorded as the client's doing. */
  private deleted = false;

  constructor(private readonly options: NodeStreamableHttpOptions) {
    this.sessionId = options.sessionId;
    this.store = options.eventStore;
  }

  async start(): Promise<void> {}

  setProtocolVersion(version: string): void {
    this.protocolVersion = version;
  }

  get inUse(): boolean {
    return this.streamOf.size > 0 || this.live.size > 0;
  }

  async handleRequest(req: IncomingMessage, res: ServerResponse, parsedBody?: unknown, authInfo?: AuthInfo): Promise<boolean> {
    if (this.closed) return refused(res, 404, SESSION_NOT_FOUND);
    if (req.method === 'POST') return this.handlePost(req, res, parsedBody, authInfo);
    if (req.method === 'GET') return this.handleGet(req, res, authInfo);
    if (req.method === 'DELETE') return this.handleDelete(res);
    res.setHeader('allow', 'GET, POST, DELETE');
    return refused(res, 405, { code: -32000, message: 'Method not allowed.' });
  }

  private async handlePost(req: IncomingMessage, res: ServerResponse, body: unknown, authInfo: AuthInfo | undefined): Promise<boolean> {
    const entries: unknown[] = Array.isArray(body) ? body : [body];
    if (entries.length > MAX_BATCH) return refused(res, 400, { code: -32600, message: `Invalid Request: Batch must not exceed ${MAX_BATCH} messages` });
    const messages = parseMessages(entries);
    if (!messages) return refused(res, 400, { code: -32700, message: 'Parse error: Invalid JSON-RPC message' });
    const requestInfo = { headers: req.headers };
    const requests = messages.filter(isRequest) as Array<JSONRPCMessage & { id: RequestId }>;
    if (requests.length === 0) {
      res.writeHead(202).end();
      for (const message of messages) this.deliverIncoming(message, { requestInfo, authInfo });
      return true;
    }
    const streamId = `${this.sessionId.slice(0, 8)}-${++this.streamCount}`;
    const resumable = this.versionFor(req, messages) >= PRIMING_SINCE;
    // An event with an id and no data first, so a client that loses the stream can resume it at once.
    const priming = resumable ? `id: ${await this.store.storeEvent(streamId, {} as JSONRPCMessage)}\ndata: \n\n` : undefined;
    if (this.closed) return refused(res, 404, SESSION_NOT_FOUND);
    // Deferred: headers, priming and a prompt answer leave together in one write.
    const stream = this.attach(streamId, res, priming, true);
    this.routes.set(streamId, { unanswered: new Set(requests.map((r) => r.id)) });
    for (const request of requests) this.streamOf.set(request.id, streamId);
    for (const message of messages) {
      const extra: MessageExtraInfo = { requestInfo, authInfo };
      if (resumable && isRequest(message)) {
        extra.closeSSEStream = () => this.closeStream(streamId);
        extra.closeStandaloneSSEStream = () => this.closeStream(STANDALONE_STREAM);
      }
      this.deliverIncoming(message, extra);
    }
    stream.startKeepAlive();
    return true;
  }

  private deliverIncoming(message: JSONRPCMessage, extra: MessageExtraInfo): void {
    if (!this.direct?.take(message, extra)) this.onmessage?.(message, extra);
    if ('method' in message && message.method === 'notifications/cancelled') this.settleCancelled(message.params?.requestId as RequestId | undefined);
  }

  /**
   * A cancelled request gets no answer (the spec), so the stream of the POST that carried it
   * would wait for one forever: the request counts as settled, and the stream ends once nothing
   * else on it is unanswered.
   */
  private settleCancelled(requestId: RequestId | undefined): void {
    const streamId = requestId === undefined ? undefined : this.streamOf.get(requestId);
    if (requestId === undefined || streamId === undefined) return;
    this.streamOf.delete(requestId);
    this.options.onSettled?.();
    const route = this.routes.get(streamId);
    route?.unanswered.delete(requestId);
    if (route && route.unanswered.size > 0) return;
    this.routes.delete(streamId);
    this.closeStream(streamId);
  }

  /**
   * The initialize request names its version; later requests carry it in the header, and without
   * the header a request counts as 2025-03-26, exactly as the SDK transport decided priming.
   */
  private versionFor(req: IncomingMessage, messages: JSONRPCMessage[]): string {
    const initialize = messages.find((m) => 'method' in m && m.method === 'initialize');
    const offered = initialize && 'params' in initialize ? initialize.params?.protocolVersion : undefined;
    if (typeof offered === 'string') return offered;
    const header = req.headers['mcp-protocol-version'];
    return typeof header === 'string' ? header : (this.protocolVersion ?? '2025-03-26');
  }

  /** A stream a GET opens ends when the GET's token expires (`expiresAt`, in seconds as the SDK counts). */
  private async handleGet(req: IncomingMessage, res: ServerResponse, authInfo: AuthInfo | undefined): Promise<boolean> {
    const lastEventId = req.headers['last-event-id'];
    if (typeof lastEventId === 'string' && lastEventId !== '') return this.resume(res, lastEventId, authInfo);
    if (this.live.has(STANDALONE_STREAM)) return refused(res, 409, { code: -32000, message: 'Conflict: Only one SSE stream is allowed per session' });
    const stream = this.attach(STANDALONE_STREAM, res);
    if (authInfo?.expiresAt !== undefined) stream.endAt(authInfo.expiresAt * 1000);
    stream.startKeepAlive();
    return true;
  }

  /** Reopens a stream (the GET stream or a POST's) from after the client's last event. */
  private async resume(res: ServerResponse, lastEventId: string, authInfo: AuthInfo | undefined): Promise<boolean> {
    const streamId = await this.store.getStreamIdForEventId?.(lastEventId);
    if (!streamId) return refused(res, 400, { code: -32000, message: 'Invalid event ID format' });
    if (this.live.has(streamId)) return refused(res, 409, { code: -32000, message: 'Conflict: Stream already has an active connection' });
    const stream = this.attach(streamId, res);
    if (authInfo?.expiresAt !== undefined) stream.endAt(authInfo.expiresAt * 1000);
    await this.store.replayEventsAfter(lastEventId, {
      send: async (eventId, message) => {
        stream.replayed.add(eventId);
        stream.write(sseFrame(message, eventId));
      },
    });
    // A POST stream whose requests are all answered has nothing more to carry once replayed.
    if (this.closed || (streamId !== STANDALONE_STREAM && !this.routes.has(streamId))) {
      this.live.delete(streamId);
      stream.end();
      return true;
    }
    stream.startKeepAlive();
    return true;
  }

  private async handleDelete(res: ServerResponse): Promise<boolean> {
    this.deleted = true;
    try {
      await this.options.onsessionclosed?.(this.sessionId);
      res.writeHead(200).end();
      return true;
    } finally {
      await this.close();
    }
  }

  /** Registers a response as the live connection of a stream; forgets it when the client leaves. */
  private attach(streamId: string, res: ServerResponse, firstFrame?: string, deferred = false): SseStream {
    const stream = new SseStream(res, this.sessionId, (gone) => {
      if (this.live.get(streamId) === gone) this.live.delete(streamId);
      this.options.onSettled?.();
    }, firstFrame, deferred);
    this.live.set(streamId, stream);
    return stream;
  }

  /** Ends a live stream early; the client reconnects with Last-Event-ID and gets what follows. */
  private closeStream(streamId: string): void {
    const stream = this.live.get(streamId);
    this.live.delete(streamId);
    stream?.end();
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const response = isResponse(message);
    const requestId = response ? (message as { id: RequestId }).id : options?.relatedRequestId;
    if (requestId === undefined) {
      if (response) throw new Error('Cannot send a response on the standalone SSE stream');
      if (this.options.mayNotify?.() === false) return;
      return this.deliver(STANDALONE_STREAM, message, false);
    }
    const streamId = this.streamOf.get(requestId);
    if (streamId === undefined) {
      if (this.closed) return;
      throw new Error(`No connection established for request ID: ${String(requestId)}`);
    }
    if (!response) return this.deliver(streamId, message, false);
    const route = this.routes.get(streamId);
    route?.unanswered.delete(requestId);
    this.streamOf.delete(requestId);
    this.options.onSettled?.();
    const last = !route || route.unanswered.size === 0;
    if (last) this.routes.delete(streamId);
    return this.deliver(streamId, message, last);
  }

  /** Stores the frame for replay, then writes it if the stream is connected (ending it after a POST's last answer). */
  private async deliver(streamId: string, message: JSONRPCMessage, last: boolean): Promise<void> {
    const eventId = await this.store.storeEvent(streamId, message);
    const stream = this.live.get(streamId);
    if (!stream) return;
    const frame = stream.replayed.has(eventId) ? undefined : sseFrame(message, eventId);
    if (!last) {
      if (frame) stream.write(frame);
      return;
    }
    this.live.delete(streamId);
    stream.end(frame);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const stream of this.live.values()) stream.end();
    this.live.clear();
    this.routes.clear();
    this.streamOf.clear();
    this.direct?.close(new CallCancelled(this.deleted ? 'session_deleted' : 'session_closed'));
    this.onclose?.();
  }
}
