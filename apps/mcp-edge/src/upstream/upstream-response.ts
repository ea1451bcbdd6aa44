import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';

/** Where a response body goes, chunk by chunk; exactly one of `end` and `error` comes last. */
export interface BodySink {
  data(chunk: Buffer): void;
  end(): void;
  error(error: Error): void;
}

/**
 * An upstream's HTTP response as the client transport reads it, whichever client fetched it: the
 * keep-alive pool (keep-alive.pool.ts) for POSTs to plain-HTTP upstreams, node's own client for
 * the rest (TLS, the GET stream).
 */
export interface UpstreamResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  /** Hands the body to `sink`; what came before is handed over at once. Call it once. */
  read(sink: BodySink): void;
  /** The body is not wanted: it is read and thrown away, so the connection stays usable. */
  discard(): void;
  /** Stops the exchange and closes its connection. */
  destroy(): void;
}

/** Node's IncomingMessage behind the same face; an aborted or failed body ends the sink once. */
export function fromIncoming(res: IncomingMessage): UpstreamResponse {
  return {
    status: res.statusCode ?? 0,
    headers: res.headers,
    read(sink) {
      let over = false;
      const stop = (error?: Error) => {
        if (over) return;
        over = true;
        if (error) sink.error(error);
        else sink.end();
      };
      res.on('data', (chunk: Buffer) => sink.data(chunk));
      res.once('end', () => stop());
      res.once('error', (error) => stop(error));
      res.once('aborted', () => stop(new Error('aborted')));
    },
    discard: () => void res.resume(),
    destroy: () => void res.destroy(),
  };
}

/** The edge will not read this response: too large, or not JSON-RPC. The connection itself is fine. */
export class UpstreamHttpError extends Error {
  /** `body`: the start of an error body, for the log only (it can hold a traceback with secrets). */
  constructor(readonly status: number, message: string, readonly body?: string) {
    super(message);
  }
}

/**
 * Reads a body up to `limit` bytes. Past it: `truncate` keeps what came and drops the connection
 * (an error body, only logged); otherwise the read fails. Nothing past the limit is buffered.
 */
export function readText(res: UpstreamResponse, limit: number, truncate = false): Promise<string> {
  return new Promise((resolve, reject) => {
    const declared = Number(res.headers['content-length']);
    if (!truncate && declared > limit) {
      res.destroy();
      reject(new UpstreamHttpError(-1, `the upstream's response of ${declared} bytes exceeds the edge's limit of ${limit} bytes`));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    res.read({
      data(chunk) {
        if (over) return;
        size += chunk.length;
        if (size <= limit) return void chunks.push(chunk);
        over = true;
        res.destroy();
        if (truncate) resolve(Buffer.concat(chunks).toString('utf8'));
        else reject(new UpstreamHttpError(-1, `the upstream's response exceeded the edge's limit of ${limit} bytes`));
      },
      end: () => resolve(chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks).toString('utf8')),
      error: reject,
    });
  });
}
