import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  ErrorCode, McpError, type JSONRPCMessage, type MessageExtraInfo, type RequestId, type ServerNotification, type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { CallCancelled } from '../upstream/call.cancellation';
import { plainToolParams } from './request-params.check';

type HandlerExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;
export type DirectHandler = (request: { method: string; params?: Record<string, unknown> }, extra: HandlerExtra) => unknown;

/** The methods a session answers without the SDK server's request machinery (issue 10: its zod parsing was most of the edge's CPU per call). */
const DIRECT_METHODS = new Set(['tools/call', 'tools/list']);

/**
 * Remembers the handler last registered for each direct method (an extension may replace the
 * session manager's, exactly as the SDK would let it), so the fast path runs the very function
 * the SDK server would have run.
 */
export function recordDirectHandlers(server: Server, handlers: Map<string, DirectHandler>): void {
  const register = server.setRequestHandler.bind(server);
  server.setRequestHandler = ((schema: unknown, handler: DirectHandler) => {
    recordDirectHandler(handlers, schema, handler);
    return register(schema as never, handler as never);
  }) as unknown as Server['setRequestHandler'];
}

/** Keeps `handler` if it serves a direct method (the schema names its method as the SDK reads it). */
export function recordDirectHandler(handlers: Map<string, DirectHandler>, schema: unknown, handler: DirectHandler): void {
  const method = String((schema as { shape: { method: { value: string } } }).shape.method.value);
  if (DIRECT_METHODS.has(method)) handlers.set(method, handler);
}

/**
 * What a session whose SDK server is built on demand (lazy-session.server.ts) needs of the fast
 * path besides tools: initialize and ping answered here, and the server built for anything else.
 */
export interface SessionSide {
  /** The initialize result, as the SDK server words it. */
  initializeResult(params: Record<string, unknown> | undefined): Record<string, unknown>;
  /** Builds and connects the session's SDK server if it is not yet, so it can take a message. */
  ensureServer(): void;
  readonly serverBuilt: boolean;
}

/** The params as the SDK's schema hands them to a handler: its own keys only (`_meta` and `arguments` whole). */
function knownParams(method: string, params: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (params === undefined) return undefined;
  const keys = method === 'tools/list' ? LIST_KEYS : CALL_KEYS;
  const known: Record<string, unknown> = {};
  for (const key of keys) if (params[key] !== undefined) known[key] = params[key];
  return known;
}

const CALL_KEYS = ['name', 'arguments', '_meta'];
const LIST_KEYS = ['cursor', '_meta'];

/** The error answer the SDK's protocol layer gives for a handler's exception, field for field. */
function errorOf(error: unknown): { code: number; message: string; data?: unknown } {
  const failure = (error ?? {}) as { code?: unknown; message?: string; data?: unknown };
  return {
    code: Number.isSafeInteger(failure.code) ? (failure.code as number) : ErrorCode.InternalError,
    message: failure.message ?? 'Internal error',
    ...(failure.data !== undefined ? { data: failure.data } : {}),
  };
}

/**
 * An abort controller made only when its signal is first read: a tools/list handler never reads
 * it, and making one per request (an EventTarget) was the largest estate-side entry of a list's
 * profile. A cancel that comes first is remembered and applied when the signal is made.
 */
class LazyAbort {
  private controller?: AbortController;
  private cancelled?: { reason: unknown };
  /** Told of a cancel without a controller (upstream/call.cancellation.ts: tools/call listens so). */
  private listeners?: Array<() => void>;

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.cancelled) this.controller.abort(this.cancelled.reason);
    }
    return this.controller.signal;
  }

  get aborted(): boolean {
    return this.cancelled !== undefined;
  }

  get reason(): unknown {
    return this.cancelled?.reason;
  }

  onAbort(listener: () => void): () => void {
    (this.listeners ??= []).push(listener);
    return () => {
      const at = this.listeners?.indexOf(listener) ?? -1;
      if (at >= 0) this.listeners?.splice(at, 1);
    };
  }

  abort(reason?: unknown): void {
    if (this.cancelled) return;
    this.cancelled = { reason };
    this.controller?.abort(reason);
    const listeners = this.listeners;
    this.listeners = undefined;
    for (const listener of listeners ?? []) listener();
  }
}

/**
 * A handler's `extra`, with `signal` read through the lazy controller. A class, because an object
 * literal with a getter costs V8 about a microsecond to make (a plain one some 40 ns).
 */
class DirectExtra {
  readonly sessionId: HandlerExtra['sessionId'];
  readonly _meta: HandlerExtra['_meta'];
  readonly sendNotification: HandlerExtra['sendNotification'];
  readonly sendRequest: HandlerExtra['sendRequest'];
  readonly authInfo: HandlerExtra['authInfo'];
  readonly requestId: HandlerExtra['requestId'];
  readonly requestInfo: HandlerExtra['requestInfo'];
  readonly closeSSEStream: HandlerExtra['closeSSEStream'];
  readonly closeStandaloneSSEStream: HandlerExtra['closeStandaloneSSEStream'];

  constructor(private readonly abort: LazyAbort, fields: Omit<HandlerExtra, 'signal'>) {
    this.sessionId = fields.sessionId;
    this._meta = fields._meta;
    this.sendNotification = fields.sendNotification;
    this.sendRequest = fields.sendRequest;
    this.authInfo = fields.authInfo;
    this.requestId = fields.requestId;
    this.requestInfo = fields.requestInfo;
    this.closeSSEStream = fields.closeSSEStream;
    this.closeStandaloneSSEStream = fields.closeStandaloneSSEStream;
  }

  get signal(): AbortSignal {
    return this.abort.signal;
  }

  /** Read by tools/call instead of `signal`, so that no AbortController is made (upstream/call.cancellation.ts). */
  get cancellation(): LazyAbort {
    return this.abort;
  }
}

/**
 * tools/call and tools/list of a session, run by the edge: the handler the SDK server would have
 * run gets the same `extra` (signal, notifications and requests tied to the request, rights,
 * request info), and its answer goes straight to the transport, which stores it for replay and
 * writes it. The server stays attached for everything else, including what a call asks of the
 * client (elicitation, sampling) and notifications/cancelled, which reaches the abort controllers
 * kept here as well.
 */
export class SessionFastPath {
  private readonly inFlight = new Map<RequestId, LazyAbort>();

  constructor(
    private readonly server: Server,
    private readonly handlers: Map<string, DirectHandler>,
    private readonly send: (message: JSONRPCMessage) => Promise<void>,
    private readonly sessionId: string,
    private readonly side?: SessionSide,
  ) {}

  /**
   * True when the message was taken here; false hands it to the SDK server. Without a server yet,
   * a notification or a response has nobody else to go to: the SDK would ignore it, so it is taken.
   */
  take(message: JSONRPCMessage, extra: MessageExtraInfo): boolean {
    if (!('method' in message)) return this.side !== undefined && !this.side.serverBuilt;
    if (!('id' in message)) {
      if (message.method === 'notifications/cancelled') this.cancel(message.params);
      return this.side !== undefined && !this.side.serverBuilt;
    }
    const request = message as JSONRPCMessage & { id: RequestId; method: string; params?: Record<string, unknown> };
    if (this.side && (request.method === 'initialize' || request.method === 'ping')) {
      const result = request.method === 'initialize' ? this.side.initializeResult(request.params) : {};
      void this.send({ jsonrpc: '2.0', id: request.id, result } as JSONRPCMessage).catch(() => undefined);
      return true;
    }
    const handler = this.handlers.get(request.method);
    if (!handler || !plainToolParams(request.method, request.params)) {
      this.side?.ensureServer();
      return false;
    }
    void this.run(handler, request, extra);
    return true;
  }

  /** The session ended: its calls stop, as the SDK server aborts its handlers on close. */
  close(reason: CallCancelled = new CallCancelled('session_closed')): void {
    for (const controller of this.inFlight.values()) controller.abort(reason);
    this.inFlight.clear();
  }

  private cancel(params: unknown): void {
    if (typeof params !== 'object' || params === null) return;
    const { requestId, reason } = params as { requestId?: RequestId; reason?: unknown };
    if (requestId !== undefined) this.inFlight.get(requestId)?.abort(new CallCancelled('client', typeof reason === 'string' ? reason : undefined));
  }

  private async run(handler: DirectHandler, request: { id: RequestId; method: string; params?: Record<string, unknown> }, extra: MessageExtraInfo): Promise<void> {
    const controller = new LazyAbort();
    this.inFlight.set(request.id, controller);
    let response: JSONRPCMessage;
    try {
      const result = await handler({ method: request.method, params: knownParams(request.method, request.params) }, this.extraFor(request, controller, extra));
      response = { jsonrpc: '2.0', id: request.id, result: result as Record<string, unknown> };
    } catch (error) {
      response = { jsonrpc: '2.0', id: request.id, error: errorOf(error) };
    } finally {
      if (this.inFlight.get(request.id) === controller) this.inFlight.delete(request.id);
    }
    // A cancelled request is not answered, as the SDK does; an answer whose stream is gone is dropped, as there.
    if (controller.aborted) return;
    await this.send(response).catch(() => undefined);
  }

  private extraFor(request: { id: RequestId; params?: Record<string, unknown> }, abort: LazyAbort, extra: MessageExtraInfo): HandlerExtra {
    const relatedRequestId = request.id;
    return new DirectExtra(abort, {
      sessionId: this.sessionId,
      _meta: request.params?._meta as HandlerExtra['_meta'],
      sendNotification: async (notification) => {
        if (abort.aborted) return;
        await this.server.notification(notification, { relatedRequestId });
      },
      sendRequest: async (outgoing, resultSchema, options) => {
        if (abort.aborted) throw new McpError(ErrorCode.ConnectionClosed, 'Request was cancelled');
        return this.server.request(outgoing, resultSchema, { ...options, relatedRequestId });
      },
      authInfo: extra.authInfo,
      requestId: request.id,
      requestInfo: extra.requestInfo,
      closeSSEStream: extra.closeSSEStream,
      closeStandaloneSSEStream: extra.closeStandaloneSSEStream,
    });
  }
}
