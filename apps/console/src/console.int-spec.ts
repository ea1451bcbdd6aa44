import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '@estate/platform';
import { loadConsoleConfig } from './config';
import { startConsole, type RunningConsole } from './console.app';

/** A stand-in service that records what reached it; answers /v1/stream as a slow event stream. */
interface Seen { method?: string; url?: string; headers: IncomingHttpHeaders; body: string }

describe('console server (real HTTP, a recording upstream)', () => {
  let upstream: Server;
  let upstreamUrl: string;
  let running: RunningConsole;
  const seen: Seen[] = [];
  let streamClosed = false;

  beforeAll(async () => {
    upstream = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        seen.push({ method: req.method, url: req.url, headers: req.headers, body });
        if (req.url === '/v1/stream') {
          res.writeHead(200, { 'content-type': 'text/event-stream', 'set-cookie': 'leak=1' });
          res.write('id: 1\ndata: {"n":1}\n\n');
          res.on('close', () => (streamClosed = true));
          return;
        }
        res.writeHead(418, { 'content-type': 'application/json', 'set-cookie': 'leak=1', 'www-authenticate': 'Bearer' });
        res.end(JSON.stringify({ error: 'TEAPOT', message: 'from upstream' }));
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    const config = loadConsoleConfig({ ESTATE_CONSOLE_PORT: '0', ESTATE_REGISTRY_URL: upstreamUrl, ESTATE_DISCOVERY_URL: upstreamUrl, ESTATE_AUDIT_URL: 'http://127.0.0.1:9' });
    running = await startConsole(config, createLogger('console-int', 'silent'));
  });

  afterAll(async () => {
    await running.stop();
    await new Promise<void>((resolve) => upstream.close(() => resolve()));
  });

  it('serves the page under a strict content policy, and no file outside the static folder', async () => {
    const page = await fetch(`${running.url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain("frame-ancestors 'none'");
    expect((await fetch(`${running.url}/js/main.js`)).headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    // The page names its icon, so a browser never asks for /favicon.ico and logs a 404 on every load.
    const icon = /<link rel="icon" href="([^"]+)"/.exec(await page.text())?.[1];
    const served = await fetch(`${running.url}${icon}`);
    expect([icon, served.status, served.headers.get('content-type')]).toEqual(['/favicon.svg', 200, 'image/svg+xml']);
    for (const probe of ['/../package.json', '/%2e%2e/package.json', '/js/../../src/config.ts', '/nope.js']) {
      const answer = await fetch(`${running.url}${probe}`);
      expect(await answer.text()).not.toContain('"dependencies"');
      expect(answer.status === 404 || answer.status === 400).toBe(true);
    }
  });

  it("relays /api/<service>/v1/... with the caller's Authorization and nothing else of theirs", async () => {
    seen.length = 0;
    const answer = await fetch(`${running.url}/api/registry/v1/tools/x/versions/1.0.0/deprecate?a=1`, {
      method: 'POST',
      headers: { authorization: 'Bearer abc.def.ghi', 'content-type': 'application/json', cookie: 'session=secret', 'x-forwarded-for': '6.6.6.6' },
      body: JSON.stringify({ reason: 'r' }),
    });
    expect(answer.status).toBe(418);
    expect(await answer.json()).toEqual({ error: 'TEAPOT', message: 'from upstream' });
    expect(answer.headers.get('www-authenticate')).toBe('Bearer');
    expect(answer.headers.get('set-cookie')).toBeNull();
    expect(answer.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/v1/tools/x/versions/1.0.0/deprecate?a=1', body: '{"reason":"r"}' });
    expect(seen[0].headers.authorization).toBe('Bearer abc.def.ghi');
    expect(seen[0].headers.cookie).toBeUndefined();
    expect(seen[0].headers['x-forwarded-for']).toBeUndefined();
  });

  it('refuses routes outside /v1, other methods and oversized bodies before anything reaches a service', async () => {
    seen.length = 0;
    expect((await fetch(`${running.url}/api/registry/healthz`)).status).toBe(404);
    expect((await fetch(`${running.url}/api/billing/v1/x`)).status).toBe(404);
    // Sent raw: fetch and browsers resolve dot segments before sending, a hand-made client need not.
    for (const escape of ['/v1/../healthz', '/v1/%2e%2e/openapi.json', '/v1/./../x', '/v1/tools/%2E%2e/%2e%2E/healthz']) {
      expect({ escape, status: await rawStatus(`/api/registry${escape}`) }).toEqual({ escape, status: 404 });
    }
    expect((await fetch(`${running.url}/api/registry/v1/tools`, { method: 'DELETE' })).status).toBe(405);
    const big = await fetch(`${running.url}/api/registry/v1/tools`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: 'x'.repeat(70 * 1024) });
    expect(big.status).toBe(413);
    expect(seen).toEqual([]);
  });

  const rawStatus = (path: string) =>
    new Promise<number>((resolve, reject) => {
      const { hostname, port } = new URL(running.url);
      request({ hostname, port, path }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      }).on('error', reject).end();
    });

  it('answers 502 with the service named when it cannot be reached', async () => {
    const answer = await fetch(`${running.url}/api/audit/v1/audit`);
    expect(answer.status).toBe(502);
    expect(await answer.json()).toEqual({ error: 'UPSTREAM_UNAVAILABLE', message: 'the audit service cannot be reached' });
  });

  it('streams an event stream through as it is written, and closes the upstream when the browser leaves', async () => {
    streamClosed = false;
    const abort = new AbortController();
    const answer = await fetch(`${running.url}/api/discovery/v1/stream`, { signal: abort.signal });
    expect(answer.headers.get('content-type')).toBe('text/event-stream');
    const reader = answer.body!.getReader();
    const first = await reader.read();
    expect(Buffer.from(first.value!).toString('utf8')).toContain('data: {"n":1}');
    abort.abort();
    await reader.cancel().catch(() => undefined);
    const deadline = Date.now() + 5000;
    while (!streamClosed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(streamClosed).toBe(true);
  });

  it('fails at boot with every bad setting listed', () => {
    expect(() => loadConsoleConfig({ ESTATE_CONSOLE_PORT: 'x', ESTATE_AUDIT_URL: 'ftp://a' })).toThrow(/ESTATE_CONSOLE_PORT[\s\S]*ESTATE_AUDIT_URL/);
  });
});
