import type { ServerResponse } from 'node:http';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** The SDK's interval: long enough to cost nothing, short enough for proxies that drop idle connections. */
const KEEP_ALIVE_MS = 15000;
const KEEP_ALIVE_FRAME = ': keepalive\n\n';

/** One SSE frame in the layout the SDK server writes, so every client that reads the SDK reads ours. */
export function sseFrame(message: JSONRPCMessage | Record<string, never>, eventId?: string): string {
  const id = eventId === undefined ? '' : `id: ${eventId}\n`;
  return `event: message\n${id}data: ${serialize(message)}\n\n`;
}

/** Serialized frozen results: a tools/list page shared by every session that sees it is stringified once. */
const frozenResults = new WeakMap<object, string>();

function serialize(message: JSONRPCMessage | Record<string, never>): string {
  const result = (message as { result?: unknown }).result;
  if (typeof result !== 'object' || result === null || !Object.isFrozen(result)) return JSON.stringify(message);
  let text = frozenResults.get(result);
  if (text === undefined) {
    text = JSON.stringify(result);
    frozenResults.set(result, text);
  }
  return `{"jsonrpc":"2.0","id":${JSON.stringify((message as { id: unknown }).id)},"result":${text}}`;
}

/**
 * A POST stream still unopened this long (a slow tool, an upstream that has not answered) sends
 * its headers and priming event, so the client can resume it and keep-alives can start.
 */
const OPEN_AFTER_MS = 50;

/**
 * One Server-Sent Events response, written straight to the node:http response. A GET stream
 * opens at once (the client waits for its headers before it reads anything). A POST stream is
 * deferred: its headers and priming event leave with the first frame, so the usual one-answer
 * POST costs a single socket write (headers, priming, answer and end of body together), which
 * was the largest share of the edge's CPU per call when headers and answer went out apart.
 */
export class SseStream {
  /** Event ids written by a replay, so a live send racing the replay does not repeat them. */
  readonly replayed = new Set<string>();
  private keepAlive?: NodeJS.Timeout;
  private ended = false;
  private opened = false;
  /** The priming event of a deferred stream, sent ahead of its first frame. */
  private held: string;

  constructor(
    private readonly res: ServerResponse,
    private readonly sessionId: string,
    onGone: (stream: SseStream) => void,
    firstFrame?: string,
    deferred = false,
  ) {
    this.held = firstFrame ?? '';
    if (!deferred) this.openWith('');
    res.once('close', () => {
      this.stopKeepAlive();
      if (!this.ended) {
        this.ended = true;
        onGone(this);
      }
    });
  }

  get open(): boolean {
    return !this.ended;
  }

  private headers(): Record<string, string> {
    return {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
      'mcp-session-id': this.sessionId,
    };
  }

  /** Sends the headers with whatever is held and `text`; node writes them in one go. */
  private openWith(text: string): void {
    this.opened = true;
    const body = this.held + text;
    this.held = '';
    this.res.writeHead(200, this.headers());
    if (body === '') this.res.flushHeaders();
    else this.res.write(body);
  }

  write(text: string): void {
    if (this.ended) return;
    if (this.opened) this.res.write(text);
    else this.openWith(text);
  }

  /** Sends the last frame and the end of the body together: one write for the usual one-answer POST. */
  end(lastFrame?: string): void {
    if (this.ended) return;
    this.ended = true;
    this.stopKeepAlive();
    if (this.opened) {
      if (lastFrame === undefined) this.res.end();
      else this.res.end(lastFrame);
      return;
    }
    // Never opened: a body of known length, so headers and body leave as one string in one write.
    this.opened = true;
    const body = this.held + (lastFrame ?? '');
    this.held = '';
    this.res.writeHead(200, { ...this.headers(), 'content-length': String(Buffer.byteLength(body)) });
    this.res.end(body);
  }

  /** Comment frames keep idle proxies from cutting a stream that waits on a slow tool or on news. */
  startKeepAlive(): void {
    if (this.ended || this.keepAlive) return;
    if (!this.opened) {
      this.keepAlive = setTimeout(() => {
        this.keepAlive = undefined;
        if (this.ended) return;
        if (!this.opened) this.openWith('');
        this.startKeepAlive();
      }, OPEN_AFTER_MS);
      this.keepAlive.unref();
      return;
    }
    this.keepAlive = setInterval(() => this.write(KEEP_ALIVE_FRAME), KEEP_ALIVE_MS);
    this.keepAlive.unref();
  }

  private stopKeepAlive(): void {
    if (this.keepAlive) {
      clearTimeout(this.keepAlive);
      clearInterval(this.keepAlive);
    }
    this.keepAlive = undefined;
  }
}
