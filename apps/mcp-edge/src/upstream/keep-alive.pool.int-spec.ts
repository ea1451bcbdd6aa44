import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KeepAlivePool } from './keep-alive.pool';
import type { UpstreamResponse } from './upstream-response';
import { requestHead } from './upstream.requester';

/** A real node HTTP server; `answer` sees each request with the number of the socket it came on. */
async function server(answer: (req: IncomingMessage, res: ServerResponse, socket: number) => void, keepAliveTimeout?: number) {
  const sockets = new WeakMap<object, number>();
  let opened = 0;
  const srv = http.createServer((req, res) => {
    if (!sockets.has(req.socket)) sockets.set(req.socket, (opened += 1));
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.once('end', () => {
      (req as IncomingMessage & { text?: string }).text = Buffer.concat(chunks).toString('utf8');
      answer(req, res, sockets.get(req.socket)!);
    });
  });
  if (keepAliveTimeout !== undefined) srv.keepAliveTimeout = keepAliveTimeout;
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const url = new URL(`http://127.0.0.1:${(srv.address() as AddressInfo).port}/mcp?x=1`);
  return {
    url,
    opened: () => opened,
    close: () => new Promise<void>((resolve) => {
      srv.closeAllConnections();
      srv.close(() => resolve());
    }),
  };
}

function body(res: UpstreamResponse): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.read({ data: (c) => void chunks.push(Buffer.from(c)), end: () => resolve(Buffer.concat(chunks).toString('utf8')), error: reject });
  });
}

function post(pool: KeepAlivePool, url: URL, text: string, headers: Record<string, string> = {}) {
  const head = requestHead('POST', url, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  let closed = 0;
  const request = pool.send(head + text, () => void (closed += 1));
  return { request, closed: () => closed };
}

const OPTIONS = { maxHeaderBytes: 16 * 1024, maxIdle: 8 };

describe('KeepAlivePool (real HTTP server)', () => {
  it('sends head and body as node would, and reuses one connection for calls one after another', async () => {
    const seen: Array<{ url?: string; host?: string; type?: string; text?: string; socket: number }> = [];
    const srv = await server((req, res, socket) => {
      seen.push({ url: req.url, host: req.headers.host, type: req.headers['content-type'], text: (req as { text?: string }).text, socket });
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`data: {"n":${seen.length}}\n\n`);
    });
    const pool = new KeepAlivePool('127.0.0.1', Number(srv.url.port), OPTIONS);
    try {
      for (let i = 1; i <= 3; i += 1) {
        const { request, closed } = post(pool, srv.url, `{"call":${i}}`);
        const res = await request.response;
        expect(res.status).toBe(200);
        expect(await body(res)).toBe(`data: {"n":${i}}\n\n`);
        expect(closed()).toBe(1);
      }
      expect(seen.map((s) => s.text)).toEqual(['{"call":1}', '{"call":2}', '{"call":3}']);
      expect(seen.every((s) => s.url === '/mcp?x=1' && s.host === srv.url.host && s.type === 'application/json')).toBe(true);
      expect(srv.opened()).toBe(1);
    } finally {
      pool.destroy();
      await srv.close();
    }
  });

  it('opens a connection per concurrent call and keeps them for the next round', async () => {
    const srv = await server((_req, res) => setTimeout(() => res.writeHead(200, { 'content-length': '2' }).end('ok'), 20));
    const pool = new KeepAlivePool('127.0.0.1', Number(srv.url.port), OPTIONS);
    try {
      for (let round = 0; round < 2; round += 1) {
        const answers = await Promise.all(Array.from({ length: 4 }, () => post(pool, srv.url, '{}').request.response.then(body)));
        expect(answers).toEqual(['ok', 'ok', 'ok', 'ok']);
      }
      expect(srv.opened()).toBe(4);
    } finally {
      pool.destroy();
      await srv.close();
    }
  });

  it('does not reuse a connection the upstream closes, and connects again for the next call', async () => {
    const srv = await server((_req, res) => res.writeHead(200, { connection: 'close', 'content-length': '2' }).end('ok'));
    const pool = new KeepAlivePool('127.0.0.1', Number(srv.url.port), OPTIONS);
    try {
      expect(await post(pool, srv.url, '{}').request.response.then(body)).toBe('ok');
      expect(await post(pool, srv.url, '{}').request.response.then(body)).toBe('ok');
      expect(srv.opened()).toBe(2);
    } finally {
      pool.destroy();
      await srv.close();
    }
  });

  it('does not write to an idle connection the upstream is about to close (its Keep-Alive timeout, less a second)', async () => {
    // node's server says `Keep-Alive: timeout=2` for 2 s, and `timeout=1` for 1.5 s.
    const srv = await server((_req, res) => res.writeHead(200, { 'content-length': '2' }).end('ok'), 2000);
    const short = await server((_req, res) => res.writeHead(200, { 'content-length': '2' }).end('ok'), 1500);
    const pool = new KeepAlivePool('127.0.0.1', Number(srv.url.port), OPTIONS);
    const shortPool = new KeepAlivePool('127.0.0.1', Number(short.url.port), OPTIONS);
    try {
      expect(await post(pool, srv.url, '{}').request.response.then(body)).toBe('ok');
      expect(await post(pool, srv.url, '{}').request.response.then(body)).toBe('ok');
      expect(srv.opened()).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 1100));
      expect(await post(pool, srv.url, '{}').request.response.then(body)).toBe('ok');
      expect(srv.opened()).toBe(2);
      expect(await post(shortPool, short.url, '{}').request.response.then(body)).toBe('ok');
      expect(await post(shortPool, short.url, '{}').request.response.then(body)).toBe('ok');
      expect(short.opened()).toBe(2);
    } finally {
      pool.destroy();
      shortPool.destroy();
      await srv.close();
      await short.close();
    }
  });

  it('fails a call whose upstream is not listening with node\'s connection error', async () => {
    const srv = await server(() => undefined);
    await srv.close();
    const pool = new KeepAlivePool('127.0.0.1', Number(srv.url.port), OPTIONS);
    const { request, closed } = post(pool, srv.url, '{}');
    await expect(request.response).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    expect(closed()).toBe(1);
  });

  it('fails the body of an answer the upstream cuts short, and the call of one that never answers when abandoned', async () => {
    const srv = await server((req, res) => {
      if ((req as { text?: string }).text === '"cut"') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: {"partial":');
        setTimeout(() => res.socket?.destroy(), 20);
      }
    });
    const pool = new KeepAlivePool('127.0.0.1', Number(srv.url.port), OPTIONS);
    try {
      const cut = await post(pool, srv.url, '"cut"').request.response;
      await expect(body(cut)).rejects.toThrow('aborted');
      const silent = post(pool, srv.url, '"silent"');
      setTimeout(() => silent.request.destroy(), 20);
      await expect(silent.request.response).rejects.toMatchObject({ code: 'ECONNRESET', message: 'socket hang up' });
      expect(silent.closed()).toBe(1);
    } finally {
      pool.destroy();
      await srv.close();
    }
  });

  it('refuses a header value that would smuggle another header, before anything is sent', () => {
    expect(() => requestHead('POST', new URL('http://127.0.0.1/mcp'), { 'mcp-session-id': 'a\r\nx-admin: 1' })).toThrow(/Invalid character in header content/);
    expect(() => requestHead('POST', new URL('http://127.0.0.1/mcp'), { 'bad name': 'x' })).toThrow(/valid HTTP token/);
  });

  it('fails calls in flight when the pool is destroyed, and refuses new ones', async () => {
    const srv = await server(() => undefined);
    const pool = new KeepAlivePool('127.0.0.1', Number(srv.url.port), OPTIONS);
    try {
      const pending = post(pool, srv.url, '{}').request.response;
      await new Promise((resolve) => setTimeout(resolve, 20));
      pool.destroy();
      await expect(pending).rejects.toThrow('socket hang up');
      await expect(post(pool, srv.url, '{}').request.response).rejects.toThrow('pool is closed');
    } finally {
      await srv.close();
    }
  });
});
