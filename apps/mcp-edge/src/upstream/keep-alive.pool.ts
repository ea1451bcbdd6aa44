import net from 'node:net';
import { Http1ResponseParser, type ResponseHead } from './http1-response.parser';
import type { BodySink, UpstreamResponse } from './upstream-response';

export interface KeepAlivePoolOptions {
  /** All response headers together. */
  maxHeaderBytes: number;
  /**
   * Idle connections kept. After a burst of 1,000 calls node's default (256) closed ~750 sockets
   * and the next burst opened them again; the extra ones idle until the upstream's keep-alive
   * timeout closes them. Connections in use are not capped (a slow tool must not queue the others).
   */
  maxIdle: number;
}

/** One request on the way: its response, and a way to abandon it (closing its connection). */
export interface PooledRequest {
  readonly response: Promise<UpstreamResponse>;
  destroy(): void;
}

/**
 * An idle connection is not used again this close to the time the upstream said it keeps one
 * (`Keep-Alive: timeout=5`): a request written as the upstream closes it would fail.
 */
const KEEP_ALIVE_MARGIN_MS = 1000;
const KEEP_ALIVE_HINT = /(?:^|,)\s*timeout=(\d+)/i;

/** How long the upstream keeps an idle connection, by its Keep-Alive header; undefined when it does not say. */
function keepAliveMs(headers: Record<string, string>): number | undefined {
  const hint = KEEP_ALIVE_HINT.exec(headers['keep-alive'] ?? '')?.[1];
  return hint === undefined ? undefined : Number(hint) * 1000;
}

/** Node's wording for a connection that closed before its response came. */
function hangUp(): Error {
  return Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
}

/** One request and its response on a pooled connection, from the write to the last byte. */
class Exchange implements UpstreamResponse, PooledRequest {
  status = 0;
  headers: Record<string, string> = {};
  readonly response: Promise<UpstreamResponse>;
  private resolve!: (response: UpstreamResponse) => void;
  private reject!: (error: Error) => void;
  private sink?: BodySink;
  private held: Buffer[] = [];
  private outcome?: { error?: Error };
  private discarding = false;

  constructor(private connection: Connection | undefined, private readonly onClose: () => void) {
    this.response = new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }

  head(head: ResponseHead): void {
    this.status = head.status;
    this.headers = head.headers;
    this.resolve(this);
  }

  body(chunk: Buffer): void {
    if (this.discarding) return;
    if (this.sink) this.sink.data(chunk);
    else this.held.push(chunk);
  }

  /** The response ended (`error` undefined) or the connection failed; the exchange is over either way. */
  settle(error?: Error): void {
    if (this.outcome) return;
    this.outcome = { error };
    this.connection = undefined;
    if (this.status === 0) this.reject(error ?? hangUp());
    else if (this.sink) this.close(this.sink);
    this.onClose();
  }

  read(sink: BodySink): void {
    this.sink = sink;
    const held = this.held;
    this.held = [];
    for (const chunk of held) sink.data(chunk);
    if (this.outcome) this.close(sink);
  }

  discard(): void {
    this.discarding = true;
    this.held = [];
  }

  destroy(): void {
    this.connection?.socket.destroy();
  }

  private close(sink: BodySink): void {
    if (this.outcome?.error) sink.error(this.outcome.error);
    else sink.end();
  }
}

/** A pooled socket: one parser and one set of listeners for its whole life, serving one exchange at a time. */
class Connection {
  exchange?: Exchange;
  /** Until when it may carry a request again once idle (the upstream's keep-alive hint), in performance.now() time. */
  usableUntil = Infinity;
  private reusable = false;
  private readonly parser: Http1ResponseParser;

  constructor(readonly socket: net.Socket, private readonly pool: KeepAlivePool, maxHeaderBytes: number) {
    this.parser = new Http1ResponseParser({
      onHead: (head) => this.exchange?.head(head),
      onBody: (chunk) => this.exchange?.body(chunk),
      onEnd: (reusable) => void (this.reusable = reusable),
    }, maxHeaderBytes);
    socket.setNoDelay(true);
    socket.setKeepAlive(true, 1000);
    socket.on('data', (chunk: Buffer) => this.read(chunk));
    socket.on('error', (error) => this.fail(error));
    socket.on('close', () => this.fail());
  }

  start(exchange: Exchange, request: string): void {
    this.exchange = exchange;
    this.parser.reset();
    this.socket.write(request);
  }

  private read(chunk: Buffer): void {
    const exchange = this.exchange;
    // Bytes nobody asked for: the upstream is off script, and the connection cannot be trusted.
    if (!exchange) return void this.socket.destroy();
    try {
      this.parser.push(chunk);
    } catch (error) {
      this.socket.destroy();
      return this.fail(error as Error);
    }
    if (!this.parser.complete) return;
    this.exchange = undefined;
    exchange.settle();
    const keepMs = keepAliveMs(exchange.headers);
    this.usableUntil = keepMs === undefined ? Infinity : performance.now() + keepMs - KEEP_ALIVE_MARGIN_MS;
    this.pool.release(this, this.reusable && (keepMs === undefined || keepMs > KEEP_ALIVE_MARGIN_MS));
  }

  private fail(error?: Error): void {
    this.pool.forget(this);
    const exchange = this.exchange;
    if (!exchange) return;
    this.exchange = undefined;
    // A body that runs to the end of the connection ends well when the connection does.
    if (!error && this.parser.endsWithConnection) return exchange.settle();
    exchange.settle(error ?? (exchange.status === 0 ? hangUp() : new Error('aborted')));
  }
}

/**
 * Keep-alive HTTP/1.1 connections to one upstream origin, for the requests on the call path: each
 * request goes out as one pre-built write (head and body), and its response is read by a small
 * parser straight off the socket (http1-response.parser.ts). Node's ClientRequest, Agent and
 * IncomingMessage cost more CPU per call than the edge's own work on it; what they did that the
 * edge needs is here: reuse, most recently used first, bounded headers, errors worded alike.
 */
export class KeepAlivePool {
  private readonly idle: Connection[] = [];
  private readonly all = new Set<Connection>();
  private closed = false;

  constructor(private readonly host: string, private readonly port: number, private readonly options: KeepAlivePoolOptions) {}

  /** Sends `request` (a whole HTTP/1.1 request: head and body) on an idle connection, or a new one. */
  send(request: string, onClose: () => void): PooledRequest {
    if (this.closed) {
      queueMicrotask(onClose);
      return { response: Promise.reject(new Error('the upstream connection pool is closed')), destroy: () => undefined };
    }
    let connection = this.idle.pop();
    // Closed by the upstream a moment ago (its close event not yet handled), or about to be.
    while (connection && (connection.socket.destroyed || connection.usableUntil <= performance.now())) {
      connection.socket.destroy();
      connection = this.idle.pop();
    }
    connection ??= this.connect();
    connection.socket.ref();
    const exchange = new Exchange(connection, onClose);
    connection.start(exchange, request);
    return exchange;
  }

  /** A connection whose response is complete: kept for the next request when it may be, else closed. */
  release(connection: Connection, reusable: boolean): void {
    if (!reusable || this.closed || this.idle.length >= this.options.maxIdle || connection.socket.destroyed) {
      connection.socket.destroy();
      return;
    }
    connection.socket.unref();
    this.idle.push(connection);
  }

  /** A connection that closed or failed: it is no longer offered. */
  forget(connection: Connection): void {
    this.all.delete(connection);
    const at = this.idle.lastIndexOf(connection);
    if (at >= 0) this.idle.splice(at, 1);
  }

  /** Closes every connection; requests on them fail as their connections close. */
  destroy(): void {
    this.closed = true;
    this.idle.length = 0;
    for (const connection of [...this.all]) connection.socket.destroy();
  }

  private connect(): Connection {
    const connection = new Connection(net.connect({ host: this.host, port: this.port }), this, this.options.maxHeaderBytes);
    this.all.add(connection);
    return connection;
  }
}
