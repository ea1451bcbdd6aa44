import http, { type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import https from 'node:https';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { SseParser } from './sse.parser';

/** The SDK client's reconnection defaults for the GET stream: 1 s, growing 1.5×, at most 30 s, 2 tries. */
const RECONNECT = { initialMs: 1000, grow: 1.5, maxMs: 30000, tries: 2 };

/** A refusal by the upstream's HTTP layer, with its status (the SDK's StreamableHTTPError carries the same). */
export class UpstreamHttpError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

function isRequest(message: JSONRPCMessage): boolean {
  return 'method' in message && 'id' in message;
}

function isResponse(message: unknown): boolean {
  return typeof message === 'object' && message !== null && 'id' in message && ('result' in message || 'error' in message);
}

function readText(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => (text += chunk));
    res.once('end', () => resolve(text));
    res.once('error', reject);
  });
}

/**
 * The client side of Streamable HTTP on node:http with a keep-alive agent, for the edge's upstream
 * connections: POSTs each message, reads the SSE or JSON answer straight off the socket, and keeps
 * the GET stream open for what the upstream sends on its own (list_changed, resources/updated,
 * logging, sampling and elicitation requests). It replaces the SDK's fetch-based transport, whose
 * undici and Web-stream plumbing cost more CPU than the rest of the edge's call path together.
 */
export class HttpClientTransport implements Transport {
  sessionId?: string;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private readonly agent: http.Agent;
  private readonly open = new Set<http.ClientRequest>();
  private protocolVersion?: string;
  private retryMs?: number;
  /** Hands messages over one microtask apart; see deliver(). */
  private inbox: Promise<void> = Promise.resolve();
  private reconnectTimer?: NodeJS.Timeout;
  private started = false;
  private closed = false;

  constructor(private readonly url: URL) {
    const secure = url.protocol === 'https:';
    this.agent = secure ? new https.Agent({ keepAlive: true }) : new http.Agent({ keepAlive: true });
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
      const res = await this.request('POST', { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'content-length': Buffer.byteLength(body) }, body);
      await this.answer(message, res, options);
    } catch (error) {
      this.onerror?.(error as Error);
      throw error;
    }
  }

  private async answer(message: JSONRPCMessage, res: IncomingMessage, options?: TransportSendOptions): Promise<void> {
    const session = res.headers['mcp-session-id'];
    if (typeof session === 'string') this.sessionId = session;
    const status = res.statusCode ?? 0;
    if (status < 200 || status > 299) {
      const text = await readText(res).catch(() => '');
      throw new UpstreamHttpError(status, `Error POSTing to endpoint (HTTP ${status}): ${text.slice(0, 500)}`);
    }
    const type = (res.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    const hasRequests = Array.isArray(message) ? message.some(isRequest) : isRequest(message);
    if (status === 202 || !hasRequests) {
      res.resume();
      if (status === 202 && 'method' in message && message.method === 'notifications/initialized') {
        this.openStream().catch((e: Error) => this.onerror?.(e));
      }
      return;
    }
    if (type === 'text/event-stream') return this.readStream(res, false, options?.onresumptiontoken);
    if (type === 'application/json') {
      const data: unknown = JSON.parse(await readText(res));
      for (const entry of Array.isArray(data) ? data : [data]) this.deliver(entry);
      return;
    }
    res.resume();
    throw new UpstreamHttpError(-1, `Unexpected content type: ${type}`);
  }

  private deliver(entry: unknown, replayId?: RequestId): void {
    if (typeof entry !== 'object' || entry === null || (entry as { jsonrpc?: unknown }).jsonrpc !== '2.0') {
      this.onerror?.(new Error('the upstream sent something that is not a JSON-RPC 2.0 message'));
      return;
    }
    if (replayId !== undefined && isResponse(entry)) (entry as { id: RequestId }).id = replayId;
    // The SDK protocol runs notification handlers a microtask later but settles responses at once:
    // a progress notification read in the same chunk as its response would find its handler gone.
    this.inbox = this.inbox.then(() => this.onmessage?.(entry as JSONRPCMessage)).catch((error: Error) => this.onerror?.(error));
  }

  /**
   * Reads an SSE body without waiting for its end. A stream that stops before it answered (the
   * upstream restarted, or closed it to make the client poll) is resumed with Last-Event-ID when
   * it gave an id, and the GET stream is always reopened.
   */
  private readStream(res: IncomingMessage, standalone: boolean, onToken?: (token: string) => void, replayId?: RequestId): void {
    let lastId: string | undefined;
    let answered = false;
    const parser = new SseParser({
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
    });
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => parser.push(chunk));
    const finished = (error?: Error) => {
      if (this.closed) return;
      if (error) this.onerror?.(new Error(`SSE stream disconnected: ${error.message}`));
      if (answered || !(standalone || lastId !== undefined)) return;
      this.scheduleReconnect(lastId, replayId, 0);
    };
    res.once('end', () => finished());
    res.once('error', finished);
    res.once('aborted', () => finished(new Error('aborted')));
  }

  /** Opens (or, with a last event id, resumes) a stream with GET; a 405 means the upstream offers none. */
  private async openStream(lastEventId?: string, replayId?: RequestId): Promise<void> {
    const headers: OutgoingHttpHeaders = { accept: 'text/event-stream' };
    if (lastEventId) headers['last-event-id'] = lastEventId;
    const res = await this.request('GET', headers);
    const status = res.statusCode ?? 0;
    if (status < 200 || status > 299) {
      res.resume();
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
    const ended = this.request('DELETE', {}).then((res) => void res.resume(), () => undefined);
    await Promise.race([ended, new Promise<void>((resolve) => setTimeout(resolve, 500).unref())]);
  }

  private request(method: string, extra: OutgoingHttpHeaders, body?: string): Promise<IncomingMessage> {
    if (this.closed) return Promise.reject(new Error('the upstream transport is closed'));
    const headers: OutgoingHttpHeaders = { ...extra };
    if (this.sessionId) headers['mcp-session-id'] = this.sessionId;
    if (this.protocolVersion) headers['mcp-protocol-version'] = this.protocolVersion;
    const send = this.url.protocol === 'https:' ? https.request : http.request;
    return new Promise((resolve, reject) => {
      const req = send(this.url, { method, headers, agent: this.agent });
      this.open.add(req);
      req.once('close', () => this.open.delete(req));
      req.once('response', resolve);
      req.once('error', reject);
      req.end(body);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.endUpstreamSession();
    this.closed = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    for (const req of this.open) req.destroy();
    this.open.clear();
    this.agent.destroy();
    this.onclose?.();
  }
}
