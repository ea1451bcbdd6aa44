import type { ServerResponse } from 'node:http';
import { atDeadline } from '@estate/platform';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';


/** The SDK's interval: long enough to cost nothing, short enough for proxies that drop idle connections. */
const KEEP_ALIVE_MS = 15000;
const KEEP_ALIVE_FRAME = ': keepalive\n\n';

/**
 * A frame as text, or as text around a pre-encoded body: a tools/list page shared by every session
 * that sees it is encoded to UTF-8 once, then written as is (no string building, no re-encoding).
 */
export type SseFrame = string | { readonly head: string; readonly body: Buffer; readonly tail: string };

/** One SSE frame in the layout the SDK server writes, so every client that reads the SDK reads ours. */
export function sseFrame(message: JSONRPCMessage | Record<string, never>, eventId?: string): SseFrame {
  const id = eventId === undefined ? '' : `id: ${eventId}\n`;
  const shared = sharedResult(message);
  if (shared === undefined) return `event: message\n${id}data: ${JSON.stringify(message)}\n\n`;
  const head = `event: message\n${id}data: {"jsonrpc":"2.0","id":${JSON.stringify((message as { id: unknown }).id)},"result":`;
  return { head, body: shared, tail: '}\n\n' };
}

/** Encoded frozen results: a tools/list page shared by every session that sees it is serialized once. */
const frozenResults = new WeakMap<object, Buffer>();

function sharedResult(message: JSONRPCMessage | Record<string, never>): Buffer | undefined {
  const result = (message as { result?: unknown }).result;
  if (typeof result !== 'object' || result === null || !Object.isFrozen(result)) return undefined;
  let encoded = frozenResults.get(result);
  if (encoded === undefined) {
    encoded = Buffer.from(JSON.stringify(result));
    frozenResults.set(result, encoded);
  }
  return encoded;
}

function withPrefix(prefix: string, frame: SseFrame): SseFrame {
  if (prefix === '') return frame;
  return typeof frame === 'string' ? prefix + frame : { ...frame, head: prefix + frame.head };
}

function frameBytes(frame: SseFrame): number {
  return typeof frame === 'string' ? Buffer.byteLength(frame) : Buffer.byteLength(frame.head) + frame.body.length + Buffer.byteLength(frame.tail);
}

/** Writes a frame; node gathers the pieces of one tick (and the headers, if unsent) into one writev. */
function writeFrame(res: ServerResponse, frame: SseFrame, last: boolean): void {
  if (typeof frame === 'string') {
    if (last) res.end(frame);
    else res.write(frame);
    return;
  }
  res.write(frame.head);
  res.write(frame.body);
  if (last) res.end(frame.tail);
  else res.write(frame.tail);
}

/**
 * A POST stream still unopened this long (a slow tool, an upstream that has not answered) sends
 * its headers and priming event, so the client can resume it and keep-alives can start. At 50 ms
 * an edge under load (calls queued past 50 ms) opened nearly every stream early, so each answer
 * took a timer, a separate header write and chunked encoding: more CPU per call exactly when CPU
 * was short. Half a second still primes a slow tool's stream long before any keep-alive is due.
 */
const OPEN_AFTER_MS = 500;

/**
 * One Server-Sent Events response, written straight to the node:http response. A GET stream
 * opens at once (the client waits for its headers before it reads anything). A POST stream is
 * deferred: its headers and priming event leave with the first frame, so the usual one-answer
 * POST costs a single socket write (headers, priming, answer and end of body together); `writev`
 * was the largest self-time entry of the edge's call profile while headers and answer went apart.
 */
export class SseStream {
  /** Event ids written by a replay, so a live send racing the replay does not repeat them. */
  readonly replayed = new Set<string>();
  private keepAlive?: NodeJS.Timeout;
  private cancelExpiry?: () => void;
  private ended = false;
  private opened = false;
  /** The priming event of a deferred stream, sent ahead of its first frame. */
  private held: string;

  constructor(
    private readonly res: ServerResponse,
    private readonly sessionId: string,
    private readonly onGone: (stream: SseStream) => void,
    firstFrame?: string,
    deferred = false,
  ) {
    this.held = firstFrame ?? '';
    if (!deferred) this.openWith('');
    res.once('close', () => {
      this.stopTimers();
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

  /** Sends the headers with whatever is held and `frame`; node writes them in one go. */
  private openWith(frame: SseFrame): void {
    this.opened = true;
    const first = withPrefix(this.held, frame);
    this.held = '';
    this.res.writeHead(200, this.headers());
    if (first === '') this.res.flushHeaders();
    else writeFrame(this.res, first, false);
  }

  write(frame: SseFrame): void {
    if (this.ended) return;
    if (this.opened) writeFrame(this.res, frame, false);
    else this.openWith(frame);
  }

  /** Sends the last frame and the end of the body together: one write for the usual one-answer POST. */
  end(lastFrame?: SseFrame): void {
    if (this.ended) return;
    this.ended = true;
    this.stopTimers();
    if (this.opened) {
      if (lastFrame === undefined) this.res.end();
      else writeFrame(this.res, lastFrame, true);
      return;
    }
    // Never opened: a body of known length, so headers and body leave together in one write.
    this.opened = true;
    const body = withPrefix(this.held, lastFrame ?? '');
    this.held = '';
    this.res.writeHead(200, { ...this.headers(), 'content-length': String(frameBytes(body)) });
    writeFrame(this.res, body, true);
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

  /**
   * Ends the stream cleanly at `deadline` (ms since the epoch), when the token that opened it
   * expires: a stream is a grant of that token and must not outlive it. Then it counts as gone.
   */
  endAt(deadline: number): void {
    if (this.ended) return;
    this.cancelExpiry?.();
    this.cancelExpiry = atDeadline(deadline, () => {
      this.cancelExpiry = undefined;
      if (this.ended) return;
      this.end();
      this.onGone(this);
    });
  }

  private stopTimers(): void {
    if (this.keepAlive) {
      clearTimeout(this.keepAlive);
      clearInterval(this.keepAlive);
    }
    this.keepAlive = undefined;
    this.cancelExpiry?.();
    this.cancelExpiry = undefined;
  }
}
