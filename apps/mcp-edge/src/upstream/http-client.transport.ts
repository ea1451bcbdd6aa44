import type { OutgoingHttpHeaders } from 'node:http';
import { StringDecoder } from 'node:string_decoder';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import { injectTraceHeaders, tracingStarted } from '@estate/platform';
import { SseParser } from './sse.parser';
import { isJsonRpcResponse as isResponse } from '@estate/protocol';
import { readText, UpstreamHttpError, type UpstreamResponse } from './upstream-response';
import { UpstreamRequester, type UpstreamRequest } from './upstream.requester';

export { UpstreamHttpError } from './upstream-response';

/** The SDK client's reconnection defaults for the GET stream: 1 s, growing 1.5×, at most 30 s, 2 tries. */
const RECONNECT = { initialMs: 1000, grow: 1.5, maxMs: 30000, tries: 2 };

/** How much the edge reads from an upstream before it gives up on a response. */
export interface UpstreamReadLimits {
  /** One JSON body or one SSE event (characters); the result limit plus room for the envelope. */
  maxMessageBytes: number;
  /** The part of an error body kept for the log; the rest is discarded unread. */
  maxErrorBodyBytes: number;
  /** All response headers together (node's own parser enforces it). */
  maxHeaderBytes: number;
}

export const DEFAULT_READ_LIMITS: UpstreamReadLimits = { maxMessageBytes: 4 * 1024 * 1024 + 64 * 1024, maxErrorBodyBytes: 1024, maxHeaderBytes: 16 * 1024 };

/** The JSON-RPC code of the answer the edge makes up for a request whose response it would not read. */
export const RESPONSE_TOO_LARGE_CODE = -32603;

/** The answer the edge makes up for request `id` when the upstream's response passed `limit` bytes (both transports). */
export function responseTooLarge(id: RequestId, limit: number): JSONRPCMessage {
  return { jsonrpc: '2.0', id, error: { code: RESPONSE_TOO_LARGE_CODE, message: `the upstream's response exceeded the edge's limit of ${limit} bytes` } };
}

function isRequest(message: JSONRPCMessage): boolean {
  return 'method' in message && 'id' in message;
}

function requestIdOf(message: JSONRPCMessage): RequestId | undefined {
  return isRequest(message) ? (message as { id: RequestId }).id : undefined;
}

/**
 * The client side of Streamable HTTP over keep-alive connections (upstream.requester.ts), for the
 * edge's upstream connections: POSTs each message, reads the SSE or JSON answer straight off the socket, and keeps
 * the GET stream open for what the upstream sends on its own (list_changed, resources/updated,
 * logging, sampling and elicitation requests). It replaces the SDK's fetch-based transport, whose
 * undici and Web-stream plumbing cost more CPU than the rest of the edge's call path together.
 */
export class HttpClientTransport implements Transport {
  sessionId?: string;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Extra headers per POSTed message (the 2026-07-28 revision mirrors the method into headers). */
  headersFor?: (message: JSONRPCMessage) => OutgoingHttpHeaders;
  /** Told when the SSE answer to a request ended without its response (a subscriptions/listen stream that dropped). */
  onUnansweredEnd?: (requestId: RequestId) => void;
  private readonly requester: UpstreamRequester;
  private readonly open = new Set<UpstreamRequest>();
  /** The POST carrying each request whose answer is still being read, by JSON-RPC id. */
  private readonly inFlight = new Map<RequestId, UpstreamRequest>();
  /** Requests sent around the SDK client (direct-call.ts): their responses go back there, by id. */
  private readonly expected = new Map<RequestId, (response: JSONRPCMessage | Error) => void>();
  private protocolVersion?: string;
  private retryMs?: number;
  /** Hands messages over one microtask apart; see deliver(). */
  private inbox: Promise<void> = Promise.resolve();
  private reconnectTimer?: NodeJS.Timeout;
  private started = false;
  private closed = false;

  constructor(url: URL, private readonly limits: UpstreamReadLimits = DEFAULT_READ_LIMITS) {
    this.requester = new UpstreamRequester(url, limits.maxHeaderBytes);
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('HttpClientTransport already started');
    this.started = true;
  }

  setProtocolVersion(version: string): void {
    this.protocolVersion = version;
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    try {
      if (options?.resumptionToken) {
        this.openStream(options.resumptionToken, isRequest(message) ? (message as { id: RequestId }).id : undefined).catch((e: Error) => this.onerror?.(e));
        return;
      }
      const body = JSON.stringify(message);
      const headers: OutgoingHttpHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'content-length': Buffer.byteLength(body) };
      if (this.headersFor) Object.assign(headers, this.headersFor(message));
      const res = await this.request('POST', headers, body, requestIdOf(message));
      await this.answer(message, res, options);
    } catch (error) {
      this.onerror?.(error as Error);
      throw error;
    }
  }

  private async answer(message: JSONRPCMessage, res: UpstreamResponse, options?: TransportSendOptions): Promise<void> {
    const session = res.headers['mcp-session-id'];
    if (typeof session === 'string') this.sessionId = session;
    const status = res.status;
    if (status < 200 || status > 299) {
      // The body may be a stack trace with secrets: it is read only far enough for the log.
      const text = await readText(res, this.limits.maxErrorBodyBytes, true).catch(() => '');
      throw new UpstreamHttpError(status, `HTTP ${status} from the upstream`, text);
    }
    const type = (res.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    const hasRequests = Array.isArray(message) ? message.some(isRequest) : isRequest(message);
    if (status === 202 || !hasRequests) {
      res.discard();
      if (status === 202 && 'method' in message && message.method === 'notifications/initialized') {
        this.openStream().catch((e: Error) => this.onerror?.(e));
      }
      return;
    }
    if (type === 'text/event-stream') return this.readStream(res, false, options?.onresumptiontoken, undefined, requestIdOf(message));
    if (type === 'application/json') {
      const data: unknown = JSON.parse(await readText(res, this.limits.maxMessageBytes));
      for (const entry of Array.isArray(data) ? data : [data]) this.deliver(entry);
      return;
    }
    res.discard();
    throw new UpstreamHttpError(-1, `Unexpected content type: ${type}`);
  }

  private deliver(entry: unknown, replayId?: RequestId): void {
    if (typeof entry !== 'object' || entry === null || (entry as { jsonrpc?: unknown }).jsonrpc !== '2.0') {
      this.onerror?.(new Error('the upstream sent something that is not a JSON-RPC 2.0 message'));
      return;
    }
    const response = isResponse(entry);
    if (replayId !== undefined && response) (entry as { id: RequestId }).id = replayId;
    const settle = response ? this.expected.get((entry as { id: RequestId }).id) : undefined;
    // The SDK protocol runs notification handlers a microtask later but settles responses at once:
    // a progress notification read in the same chunk as its response would find its handler gone.
    // A direct call's response waits its turn alike, after what the upstream sent before it.
    const hand = settle ? () => settle(entry as JSONRPCMessage) : () => this.onmessage?.(entry as JSONRPCMessage);
    this.inbox = this.inbox.then(hand).catch((error: Error) => this.onerror?.(error));
  }

  /** The response to request `id` goes to `settle` instead of onmessage (direct-call.ts). */
  expect(id: RequestId, settle: (response: JSONRPCMessage | Error) => void): void {
    this.expected.set(id, settle);
  }

  forget(id: RequestId): void {
    this.expected.delete(id);
  }

  /**
   * Reads an SSE body without waiting for its end. A stream that stops before it answered (the
   * upstream restarted, or closed it to make the client poll) is resumed with Last-Event-ID when
   * it gave an id, and the GET stream is always reopened.
   */
  private readStream(res: UpstreamResponse, standalone: boolean, onToken?: (token: string) => void, replayId?: RequestId, requestId?: RequestId): void {
    let lastId: string | undefined;
    let answered = false;
    let overflowed = false;
    const parser = new SseParser({
      onOverflow: (chars) => {
        overflowed = true;
        res.destroy();
        this.onerror?.(new Error(`an upstream SSE event passed ${chars} characters (limit ${this.limits.maxMessageBytes}); the stream was dropped`));
        const id = replayId ?? requestId;
        // The request this stream answers fails now instead of waiting for its timeout.
        if (!answered && id !== undefined) {
          answered = true;
          this.deliver(responseTooLarge(id, this.limits.maxMessageBytes));
        }
      },
      onRetry: (ms) => (this.retryMs = ms),
      onEvent: (event) => {
        if (event.id !== undefined) {
          lastId = event.id;
          onToken?.(event.id);
        }
        if (event.data === '' || event.event !== 'message') return;
        try {
          const entry: unknown = JSON.parse(event.data);
          if (isResponse(entry)) answered = true;
          this.deliver(entry, replayId);
        } catch (error) {
          this.onerror?.(error as Error);
        }
      },
    }, this.limits.maxMessageBytes);
    const decoder = new StringDecoder('utf8');
    const finished = (error?: Error) => {
      if (this.closed || overflowed) return;
      if (error) this.onerror?.(new Error(`SSE stream disconnected: ${error.message}`));
      if (!answered && requestId !== undefined) this.onUnansweredEnd?.(requestId);
      if (answered || !(standalone || lastId !== undefined)) return;
      this.scheduleReconnect(lastId, replayId, 0);
    };
    res.read({ data: (chunk) => parser.push(decoder.write(chunk)), end: () => finished(), error: finished });
  }

  /** Opens (or, with a last event id, resumes) a stream with GET; a 405 means the upstream offers none. */
  private async openStream(lastEventId?: string, replayId?: RequestId): Promise<void> {
    const headers: OutgoingHttpHeaders = { accept: 'text/event-stream' };
    if (lastEventId) headers['last-event-id'] = lastEventId;
    const res = await this.request('GET', headers);
    const status = res.status;
    if (status < 200 || status > 299) {
      res.discard();
      if (status === 405) return;
      throw new UpstreamHttpError(status, `Failed to open SSE stream: HTTP ${status}`);
    }
    this.readStream(res, true, undefined, replayId);
  }

  private scheduleReconnect(lastEventId: string | undefined, replayId: RequestId | undefined, attempt: number): void {
    if (attempt >= RECONNECT.tries) {
      this.onerror?.(new Error(`Maximum reconnection attempts (${RECONNECT.tries}) exceeded.`));
      return;
    }
    const delay = this.retryMs ?? Math.min(RECONNECT.initialMs * RECONNECT.grow ** attempt, RECONNECT.maxMs);
    this.reconnectTimer = setTimeout(() => {
      this.openStream(lastEventId, replayId).catch((error: Error) => {
        this.onerror?.(new Error(`Failed to reconnect SSE stream: ${error.message}`));
        this.scheduleReconnect(lastEventId, replayId, attempt + 1);
      });
    }, delay);
    this.reconnectTimer.unref();
  }

  /** Tells the upstream the session is over (a courtesy the SDK client skips): best effort, bounded. */
  private async endUpstreamSession(): Promise<void> {
    if (!this.sessionId) return;
    const ended = this.request('DELETE', {}).then((res) => res.discard(), () => undefined);
    await Promise.race([ended, new Promise<void>((resolve) => setTimeout(resolve, 500).unref())]);
  }

  /**
   * Ends the HTTP exchange of a request still in flight: under 2026-07-28 closing the stream is
   * how a client cancels. Returns whether one was open.
   */
  abort(id: RequestId): boolean {
    const req = this.inFlight.get(id);
    req?.destroy();
    return req !== undefined;
  }

  private request(method: string, extra: OutgoingHttpHeaders, body?: string, id?: RequestId): Promise<UpstreamResponse> {
    if (this.closed) return Promise.reject(new Error('the upstream transport is closed'));
    // The call's trace goes on at the upstream (W3C traceparent), when one is active; `extra` is this request's own object.
    const headers: OutgoingHttpHeaders = tracingStarted() ? { ...injectTraceHeaders<Record<string, string>>({}), ...extra } : extra;
    if (this.sessionId) headers['mcp-session-id'] = this.sessionId;
    if (this.protocolVersion) headers['mcp-protocol-version'] = this.protocolVersion;
    const req = this.requester.send(method, headers, body, () => {
      this.open.delete(req);
      if (id !== undefined && this.inFlight.get(id) === req) this.inFlight.delete(id);
    });
    this.open.add(req);
    if (id !== undefined) this.inFlight.set(id, req);
    return req.response;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.endUpstreamSession();
    this.closed = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    for (const req of this.open) req.destroy();
    this.open.clear();
    this.requester.destroy();
    // As the SDK client fails its own requests when its transport closes.
    const closed = McpError.fromError(ErrorCode.ConnectionClosed, 'Connection closed');
    for (const settle of [...this.expected.values()]) settle(closed);
    this.expected.clear();
    this.onclose?.();
  }
}
