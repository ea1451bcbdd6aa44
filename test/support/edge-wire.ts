import { request, type IncomingHttpHeaders } from 'node:http';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { TokenClaims } from '@estate/platform';
import { token } from './estate.harness';

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

export interface RawRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

export const ACCEPT_BOTH = 'application/json, text/event-stream';

/** One HTTP exchange over node:http, which (unlike fetch) lets a test set Host and any header it likes. */
export function raw(url: string, options: RawRequest = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? 'POST', headers: options.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

export interface SseEvent {
  id?: string;
  event?: string;
  data: string;
}

/** Splits an SSE body into events (comments and keep-alives dropped). */
export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    const event: SseEvent = { data: '' };
    let seen = false;
    for (const line of block.split(/\r?\n/)) {
      const match = /^(id|event|data): ?(.*)$/.exec(line);
      if (!match) continue;
      seen = true;
      if (match[1] === 'data') event.data += match[2];
      else event[match[1] as 'id' | 'event'] = match[2];
    }
    if (seen) events.push(event);
  }
  return events;
}

/** The JSON-RPC messages carried by an SSE body (the empty priming events skipped). */
export function sseMessages(text: string): Array<Record<string, unknown>> {
  return parseSse(text)
    .filter((e) => e.data.trim() !== '')
    .map((e) => JSON.parse(e.data) as Record<string, unknown>);
}

/** An SSE answer read as it arrives: a GET stream, or a POST's (a 2026-07-28 `subscriptions/listen`). */
export interface OpenStream {
  status: number;
  headers: IncomingHttpHeaders;
  events: SseEvent[];
  waitFor(predicate: (e: SseEvent) => boolean, timeoutMs?: number): Promise<SseEvent>;
  close(): void;
  /** Whether the server has ended the stream. */
  closed(): boolean;
}

/** GETs `url`, or POSTs `body` to it when one is given. */
export function openStream(url: string, headers: Record<string, string>, body?: string): Promise<OpenStream> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: body === undefined ? 'GET' : 'POST', headers }, (res) => {
      const events: SseEvent[] = [];
      const waiters: Array<() => void> = [];
      let buffer = '';
      let ended = false;
      res.on('data', (chunk: Buffer) => {
        buffer += chunk.toString('utf8');
        const cut = buffer.lastIndexOf('\n\n');
        if (cut < 0) return;
        events.push(...parseSse(buffer.slice(0, cut)));
        buffer = buffer.slice(cut + 2);
        waiters.splice(0).forEach((wake) => wake());
      });
      res.on('close', () => (ended = true));
      res.on('error', () => undefined);
      const waitFor = (predicate: (e: SseEvent) => boolean, timeoutMs = 10000) =>
        new Promise<SseEvent>((done, fail) => {
          const timer = setTimeout(() => fail(new Error(`no matching SSE event within ${timeoutMs} ms; saw ${JSON.stringify(events)}`)), timeoutMs);
          const check = () => {
            const found = events.find(predicate);
            if (found) {
              clearTimeout(timer);
              done(found);
            } else waiters.push(check);
          };
          check();
        });
      resolve({ status: res.statusCode ?? 0, headers: res.headers, events, waitFor, close: () => req.destroy(), closed: () => ended });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A raw MCP session driven by hand: the handshake, then requests whose answers are read from SSE. */
export class RawSession {
  id = '';
  private nextId = 1;

  constructor(readonly url: string, readonly bearer: string) {}

  static async open(url: string, claims: TokenClaims, version = '2025-11-25'): Promise<RawSession> {
    const session = new RawSession(url, await token(claims));
    const init = await session.initialize(version);
    if (init.status !== 200) throw new Error(`initialize failed: ${init.status} ${init.text}`);
    const initialized = await session.post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    if (initialized.status !== 202) throw new Error(`initialized failed: ${initialized.status} ${initialized.text}`);
    return session;
  }

  headers(extra: Record<string, string> = {}): Record<string, string> {
    return {
      authorization: `Bearer ${this.bearer}`,
      'content-type': 'application/json',
      accept: ACCEPT_BOTH,
      ...(this.id ? { 'mcp-session-id': this.id } : {}),
      ...extra,
    };
  }

  async initialize(version: unknown, id: unknown = 0): Promise<RawResponse & { result?: Record<string, unknown> }> {
    const params = { protocolVersion: version, capabilities: {}, clientInfo: { name: 'edge-wire', version: '1.0.0' } };
    const response = await this.post({ jsonrpc: '2.0', id, method: 'initialize', params });
    if (typeof response.headers['mcp-session-id'] === 'string') this.id = response.headers['mcp-session-id'];
    const answer = response.status === 200 ? sseMessages(response.text)[0] : undefined;
    return { ...response, result: answer?.result as Record<string, unknown> | undefined };
  }

  post(body: unknown, extra: Record<string, string> = {}): Promise<RawResponse> {
    return raw(this.url, { headers: this.headers(extra), body: typeof body === 'string' ? body : JSON.stringify(body) });
  }

  /** Sends a request with a fresh id and returns its JSON-RPC answer (from SSE, or the refusal body). */
  async call(method: string, params?: unknown, id: unknown = this.nextId++): Promise<{ status: number; message: Record<string, unknown> }> {
    const response = await this.post({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
    const isSse = String(response.headers['content-type']).startsWith('text/event-stream');
    return { status: response.status, message: isSse ? sseMessages(response.text)[0] : (JSON.parse(response.text) as Record<string, unknown>) };
  }
}

/**
 * The `Mcp-*` headers a 2026-07-28 request must carry, mirroring its body: the revision, the
 * method, and the name or URI the request targets.
 */
export function mirroredHeaders(method: string, params: Record<string, unknown>): Record<string, string> {
  const target = method === 'prompts/get' || method === 'tools/call' ? params['name'] : method === 'resources/read' ? params['uri'] : undefined;
  return { 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, ...(typeof target === 'string' ? { 'mcp-name': target } : {}) };
}

/**
 * The official SDK client's Streamable HTTP transport, made to open its session on an older
 * revision (the SDK client always offers its newest in initialize; the edge echoes a version it
 * speaks), with every message the edge sent it kept exactly as it arrived, before the SDK parsed it.
 */
export class RevisionPinnedTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly received: JSONRPCMessage[] = [];
  private readonly inner: StreamableHTTPClientTransport;

  constructor(url: string, bearer: string, private readonly version: string) {
    this.inner = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${bearer}` } } });
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  async start(): Promise<void> {
    this.inner.onmessage = (message: JSONRPCMessage) => {
      this.received.push(structuredClone(message));
      this.onmessage?.(message);
    };
    this.inner.onclose = () => this.onclose?.();
    this.inner.onerror = (error) => this.onerror?.(error);
    await this.inner.start();
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const pinned = 'method' in message && message.method === 'initialize' ? { ...message, params: { ...message.params, protocolVersion: this.version } } : message;
    await this.inner.send(pinned, options);
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion(version);
  }

  async close(): Promise<void> {
    await this.inner.close();
  }

  /** The result the edge sent for the request with this id, as it arrived. */
  resultOf(id: number | string): Record<string, unknown> | undefined {
    const answer = this.received.find((m) => 'id' in m && m.id === id && 'result' in m) as { result: Record<string, unknown> } | undefined;
    return answer?.result;
  }

  /** The requests the edge sent the client (elicitation, sampling), as they arrived. */
  requests(): Array<{ method: string; params?: Record<string, unknown> }> {
    return this.received.filter((m) => 'method' in m && 'id' in m) as Array<{ method: string; params?: Record<string, unknown> }>;
  }
}
