import { Http1ResponseParser, HttpResponseError, type ResponseHead } from './http1-response.parser';

interface Read {
  heads: ResponseHead[];
  body: string;
  ends: boolean[];
}

/** Feeds `wire` to a fresh parser in pieces of `step` bytes (every split point a socket could produce). */
function parse(wire: string, step = wire.length, maxHeaderBytes = 1024): Read & { parser: Http1ResponseParser } {
  const read: Read = { heads: [], body: '', ends: [] };
  const body: Buffer[] = [];
  const parser = new Http1ResponseParser({
    onHead: (head) => void read.heads.push(head),
    // Copied: the parser hands out views of the socket's buffer.
    onBody: (chunk) => void body.push(Buffer.from(chunk)),
    onEnd: (reusable) => void read.ends.push(reusable),
  }, maxHeaderBytes);
  const bytes = Buffer.from(wire, 'utf8');
  for (let at = 0; at < bytes.length; at += step) parser.push(bytes.subarray(at, at + step));
  return { ...read, body: Buffer.concat(body).toString('utf8'), parser };
}

const JSON_ANSWER = '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"é ok"}]}}';
const SSE_ANSWER = `event: message\ndata: ${JSON_ANSWER}\n\n`;

describe('Http1ResponseParser', () => {
  it('reads a Content-Length body however the bytes are split, and keeps the connection', () => {
    const wire = `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(JSON_ANSWER)}\r\nMcp-Session-Id: abc\r\n\r\n${JSON_ANSWER}`;
    for (const step of [1, 2, 7, 64, wire.length]) {
      const read = parse(wire, step);
      expect(read.heads).toEqual([{ status: 200, headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(JSON_ANSWER)), 'mcp-session-id': 'abc' } }]);
      expect(read.body).toBe(JSON_ANSWER);
      expect(read.ends).toEqual([true]);
    }
  });

  it('reads a chunked SSE answer with extensions and trailers, split anywhere', () => {
    const half = Math.floor(SSE_ANSWER.length / 2);
    const chunks = [SSE_ANSWER.slice(0, half), SSE_ANSWER.slice(half)].map((c) => `${Buffer.byteLength(c).toString(16)};ext=1\r\n${c}\r\n`).join('');
    const wire = `HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n${chunks}0\r\nx-trailer: 1\r\n\r\n`;
    for (const step of [1, 3, 50, wire.length]) {
      const read = parse(wire, step);
      expect(read.body).toBe(SSE_ANSWER);
      expect(read.ends).toEqual([true]);
      expect(read.parser.complete).toBe(true);
    }
  });

  it('skips an interim 100 Continue and reads the answer after it', () => {
    const read = parse('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n');
    expect(read.heads.map((h) => h.status)).toEqual([202]);
    expect(read.ends).toEqual([true]);
  });

  it('ends a body without length with the connection, and never reuses that connection', () => {
    const read = parse('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\r\n{"a":');
    expect(read.body).toBe('{"a":');
    expect(read.ends).toEqual([]);
    expect(read.parser.endsWithConnection).toBe(true);
  });

  it('does not reuse a connection the upstream said it closes, nor an HTTP/1.0 one by default', () => {
    expect(parse('HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n').ends).toEqual([false]);
    expect(parse('HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n').ends).toEqual([false]);
    expect(parse('HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n').ends).toEqual([true]);
  });

  it('joins a repeated header and reads names in any case', () => {
    const read = parse('HTTP/1.1 200 OK\r\nX-A: 1\r\nx-a: 2\r\ncontent-length: 0\r\n\r\n');
    expect(read.heads[0].headers['x-a']).toBe('1, 2');
  });

  it.each([
    ['a status line that is not HTTP', 'SSH-2.0-OpenSSH\r\n\r\n', /status line is not HTTP/],
    ['a header line without a colon', 'HTTP/1.1 200 OK\r\nbroken\r\n\r\n', /header line .* malformed/],
    ['a Content-Length that is not a number', 'HTTP/1.1 200 OK\r\nContent-Length: 1e3\r\n\r\n', /Content-Length is not a number/],
    ['a bad chunk size', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n', /chunk-size line .* malformed/],
    ['a chunk without its CRLF', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabXY', /did not end with CRLF/],
    ['bytes after the response', 'HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nab', /bytes after its response/],
  ])('refuses %s', (_name, wire, message) => {
    expect(() => parse(wire)).toThrow(HttpResponseError);
    expect(() => parse(wire)).toThrow(message);
  });

  it('refuses headers past the limit, whole or still arriving, without holding more', () => {
    const long = `HTTP/1.1 200 OK\r\nx-big: ${'a'.repeat(2000)}\r\n\r\n`;
    expect(() => parse(long, long.length, 1024)).toThrow(/headers passed 1024 bytes/);
    expect(() => parse(long, 100, 1024)).toThrow(/headers of the upstream passed 1024 bytes/);
  });

  it('reads the next response after reset, with no body for a HEAD', () => {
    const read = parse('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
    read.parser.reset(true);
    read.parser.push(Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n'));
    expect(read.body).toBe('ok');
    expect(read.parser.complete).toBe(true);
  });
});
