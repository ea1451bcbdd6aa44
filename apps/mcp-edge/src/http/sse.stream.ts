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
 * One open Server-Sent Events response, written straight to the node:http response. The headers
 * leave at once (a client waits for them before it reads anything), together with the first
 * frame when there is one, and the stream knows when the client has gone.
 */
export class SseStream {
  /** Event ids written by a replay, so a live send racing the replay does not repeat them. */
  readonly replayed = new Set<string>();
  private keepAlive?: NodeJS.Timeout;
  private ended = false;

  constructor(private readonly res: ServerResponse, sessionId: string, onGone: (stream: SseStream) => void, firstFrame?: string) {
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
      'mcp-session-id': sessionId,
    });
    if (firstFrame === undefined) res.flushHeaders();
    else res.write(firstFrame);
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

  write(text: string): void {
    if (!this.ended) this.res.write(text);
  }

  /** Sends the last frame and the end of the body together: one write for the usual one-answer POST. */
  end(lastFrame?: string): void {
    if (this.ended) return;
    this.ended = true;
    this.stopKeepAlive();
    if (lastFrame === undefined) this.res.end();
    else this.res.end(lastFrame);
  }

  /** Comment frames keep idle proxies from cutting a stream that waits on a slow tool or on news. */
  startKeepAlive(): void {
    if (this.ended || this.keepAlive) return;
    this.keepAlive = setInterval(() => this.write(KEEP_ALIVE_FRAME), KEEP_ALIVE_MS);
    this.keepAlive.unref();
  }

  private stopKeepAlive(): void {
    if (this.keepAlive) clearInterval(this.keepAlive);
    this.keepAlive = undefined;
  }
}
