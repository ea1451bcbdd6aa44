/** A response's status line and headers; names in lower case, repeated headers joined with ", ". */
export interface ResponseHead {
  status: number;
  headers: Record<string, string>;
}

export interface ResponseParserEvents {
  onHead(head: ResponseHead): void;
  onBody(chunk: Buffer): void;
  /** The response is complete; `reusable`: the connection may carry the next request. */
  onEnd(reusable: boolean): void;
}

/** The upstream's bytes are not an HTTP/1.1 response the edge will read. */
export class HttpResponseError extends Error {}

type State = 'head' | 'length' | 'chunk-size' | 'chunk-data' | 'chunk-end' | 'trailers' | 'until-close' | 'done';

const CRLF = Buffer.from('\r\n');
const HEAD_END = Buffer.from('\r\n\r\n');
/** A chunk-size line is a hex number and an optional extension; anything this long is not one. */
const MAX_CHUNK_LINE = 1024;
const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})(?: .*)?$/;

/**
 * An incremental reader of one HTTP/1.1 response at a time (RFC 9112): status line and headers
 * (bounded), then a body framed by Content-Length, by chunked transfer coding (trailers read and
 * dropped), or by the end of the connection. Informational (1xx) responses are skipped. It knows
 * nothing of sockets: the keep-alive pool feeds it what it reads and learns when a response ends
 * and whether the connection can be used again.
 */
export class Http1ResponseParser {
  private state: State = 'head';
  private pending?: Buffer;
  private remaining = 0;
  private reusable = true;
  private noBody = false;

  constructor(private readonly events: ResponseParserEvents, private readonly maxHeaderBytes: number) {}

  /** Expect the next response; `noBody` for the answer to a HEAD request. */
  reset(noBody = false): void {
    this.state = 'head';
    this.pending = undefined;
    this.noBody = noBody;
    this.reusable = true;
  }

  /** Whether the response read so far ends where the connection ends (no length was given). */
  get endsWithConnection(): boolean {
    return this.state === 'until-close';
  }

  get complete(): boolean {
    return this.state === 'done';
  }

  /** Reads what arrived; throws HttpResponseError when it is not a well-formed response. Bytes past the response are an error too. */
  push(data: Buffer): void {
    const buffer = this.pending ? Buffer.concat([this.pending, data]) : data;
    this.pending = undefined;
    let at = 0;
    while (at < buffer.length) {
      switch (this.state) {
        case 'head': {
          const end = buffer.indexOf(HEAD_END, at);
          if (end < 0) return this.hold(buffer, at, this.maxHeaderBytes, 'response headers');
          if (end - at > this.maxHeaderBytes) throw new HttpResponseError(`the upstream's response headers passed ${this.maxHeaderBytes} bytes`);
          this.head(buffer.toString('latin1', at, end));
          at = end + HEAD_END.length;
          break;
        }
        case 'length':
          at = this.body(buffer, at);
          if (this.remaining === 0) this.finish();
          break;
        case 'chunk-size': {
          const end = buffer.indexOf(CRLF, at);
          if (end < 0) return this.hold(buffer, at, MAX_CHUNK_LINE, 'a chunk-size line');
          this.remaining = chunkSize(buffer.toString('latin1', at, end));
          at = end + CRLF.length;
          this.state = this.remaining === 0 ? 'trailers' : 'chunk-data';
          break;
        }
        case 'chunk-data':
          at = this.body(buffer, at);
          if (this.remaining === 0) this.state = 'chunk-end';
          break;
        case 'chunk-end': {
          if (buffer.length - at < CRLF.length) return this.hold(buffer, at, CRLF.length, 'a chunk');
          if (buffer[at] !== 13 || buffer[at + 1] !== 10) throw new HttpResponseError('a chunk of the upstream\'s response did not end with CRLF');
          at += CRLF.length;
          this.state = 'chunk-size';
          break;
        }
        case 'trailers': {
          const end = buffer.indexOf(CRLF, at);
          if (end < 0) return this.hold(buffer, at, this.maxHeaderBytes, 'response trailers');
          // Trailer fields carry nothing the edge reads; the empty line ends the response.
          if (end === at) this.finish();
          at = end + CRLF.length;
          break;
        }
        case 'until-close':
          this.events.onBody(at === 0 ? buffer : buffer.subarray(at));
          return;
        case 'done':
          throw new HttpResponseError('the upstream sent bytes after its response');
      }
    }
  }

  /** Hands on what of the `remaining` body bytes this read holds; returns where the body stopped. */
  private body(buffer: Buffer, at: number): number {
    const take = Math.min(this.remaining, buffer.length - at);
    this.events.onBody(buffer.subarray(at, at + take));
    this.remaining -= take;
    return at + take;
  }

  /** Keeps an unfinished line or head for the next read, bounded so that an endless one fails. */
  private hold(buffer: Buffer, at: number, limit: number, what: string): void {
    if (buffer.length - at > limit) throw new HttpResponseError(`${what} of the upstream passed ${limit} bytes`);
    this.pending = Buffer.from(buffer.subarray(at));
  }

  private head(text: string): void {
    const lines = text.split('\r\n');
    const status = STATUS_LINE.exec(lines[0]);
    if (!status) throw new HttpResponseError(`the upstream's status line is not HTTP/1.x: ${JSON.stringify(lines[0].slice(0, 64))}`);
    const headers: Record<string, string> = {};
    for (let i = 1; i < lines.length; i += 1) {
      const colon = lines[i].indexOf(':');
      if (colon <= 0) throw new HttpResponseError(`a header line of the upstream's response is malformed: ${JSON.stringify(lines[i].slice(0, 64))}`);
      const name = lines[i].slice(0, colon).trim().toLowerCase();
      const value = lines[i].slice(colon + 1).trim();
      headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
    }
    const code = Number(status[2]);
    // 1xx: an interim answer (100 Continue, 103 Early Hints); the real one follows.
    if (code < 200 && code !== 101) return;
    const connection = (headers['connection'] ?? '').toLowerCase();
    this.reusable = status[1] === '1' ? !connection.includes('close') : connection.includes('keep-alive');
    this.events.onHead({ status: code, headers });
    if (this.noBody || code === 204 || code === 304) return this.finish();
    const coding = headers['transfer-encoding'];
    if (coding !== undefined) {
      if (/(?:^|,)\s*chunked\s*$/i.test(coding)) this.state = 'chunk-size';
      else this.untilClose();
      return;
    }
    const length = headers['content-length'];
    if (length === undefined) return this.untilClose();
    if (!/^\d+$/.test(length)) throw new HttpResponseError(`the upstream's Content-Length is not a number: ${JSON.stringify(length.slice(0, 32))}`);
    this.remaining = Number(length);
    if (this.remaining === 0) this.finish();
    else this.state = 'length';
  }

  private untilClose(): void {
    this.reusable = false;
    this.state = 'until-close';
  }

  private finish(): void {
    this.state = 'done';
    this.events.onEnd(this.reusable);
  }
}

function chunkSize(line: string): number {
  const hex = line.split(';', 1)[0].trim();
  if (!/^[0-9a-fA-F]{1,12}$/.test(hex)) throw new HttpResponseError(`a chunk-size line of the upstream's response is malformed: ${JSON.stringify(line.slice(0, 32))}`);
  return parseInt(hex, 16);
}
