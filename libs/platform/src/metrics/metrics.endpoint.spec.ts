import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Counter } from 'prom-client';
import { metricsEndpoint } from './metrics.endpoint';
import { serviceRegistry } from './service.registry';

const TOKEN = 'scrape-secret-0123456789';

/** One GET against a real server; `headers` as a client would send them. */
function get(server: Server, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function serve(token: string | undefined): Promise<Server> {
  const registry = serviceRegistry('spec');
  new Counter({ name: 'estate_spec_things_total', help: 'things', registers: [registry] }).inc(3);
  const handler = metricsEndpoint({ registry, token });
  const server = createServer((req, res) => handler(req, res, () => res.writeHead(418).end('next')));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

describe('/metrics access', () => {
  const servers: Server[] = [];
  afterAll(() => Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve)))));
  const started = async (token: string | undefined) => {
    const server = await serve(token);
    servers.push(server);
    return server;
  };

  it('serves the service registry, process metrics included, to the bearer of the scrape token', async () => {
    const server = await started(TOKEN);
    const answer = await get(server, '/metrics', { authorization: `Bearer ${TOKEN}` });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toMatch(/^text\/plain/);
    expect(answer.body).toContain('estate_spec_things_total{service="spec"} 3');
    expect(answer.body).toMatch(/^process_cpu_seconds_total\{service="spec"\} /m);
  });

  it('refuses a wrong token, an agent token and no token with 401 once a token is set, even from loopback', async () => {
    const server = await started(TOKEN);
    for (const headers of [{ authorization: 'Bearer not-the-secret' }, { authorization: 'Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig' }, {}] as Array<Record<string, string>>) {
      const answer = await get(server, '/metrics', headers);
      expect(answer.status).toBe(401);
      expect(answer.headers['www-authenticate']).toBe('Bearer realm="metrics"');
      expect(answer.body).not.toContain('estate_spec_things_total');
    }
  });

  it('without a token, serves loopback clients that send no credentials, and refuses relayed or credentialed ones', async () => {
    const server = await started(undefined);
    expect((await get(server, '/metrics')).status).toBe(200);
    const relayed = await get(server, '/metrics', { 'x-forwarded-for': '203.0.113.9' });
    expect(relayed.status).toBe(403);
    expect(JSON.parse(relayed.body)).toEqual({ error: 'FORBIDDEN', message: expect.stringMatching(/loopback clients only/) });
    expect((await get(server, '/metrics', { authorization: 'Bearer agent-token' })).status).toBe(403);
    // nginx's usual proxy_set_header, and the other headers proxies and CDNs add, are relays too.
    for (const header of ['x-real-ip', 'via', 'x-forwarded-host', 'cf-connecting-ip', 'true-client-ip']) {
      expect([header, (await get(server, '/metrics', { [header]: header === 'via' ? '1.1 nginx' : '203.0.113.9' })).status]).toEqual([header, 403]);
    }
    // Credentials of any kind: a browser's cookie is one.
    for (const header of ['cookie', 'proxy-authorization']) {
      const answer = await get(server, '/metrics', { [header]: header === 'cookie' ? 'session=abc' : 'Basic YTpi' });
      expect([header, answer.status, JSON.parse(answer.body).message]).toEqual([header, 403, expect.stringMatching(/credentials/)]);
    }
  });

  it('answers only GET and HEAD, and passes every other path on', async () => {
    const server = await started(undefined);
    const post = await get(server, '/metrics', {}, 'POST');
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
    expect((await get(server, '/metrics', {}, 'HEAD')).status).toBe(200);
    expect((await get(server, '/metrics/', {})).status).toBe(200);
    expect((await get(server, '/metricsx')).status).toBe(418);
  });

  it('lets several services register the same metric names in one process', () => {
    const names = (r: ReturnType<typeof serviceRegistry>) => r.getMetricsAsArray().map((m) => m.name);
    expect(names(serviceRegistry('one'))).toEqual(names(serviceRegistry('two')));
  });
});
