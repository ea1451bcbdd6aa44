import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseAllowEntry, targetAddressPolicy, type AllowEntry } from '@estate/platform';
import { WebhookSender } from './webhook.sender';

/** Real sockets and the real resolver: `localhost` resolves to loopback, which a strict policy refuses. */
describe('webhook sender', () => {
  let server: Server;
  let port: number;
  let hits = 0;
  let hang = false;

  beforeAll(async () => {
    server = createServer((req, res) => {
      hits += 1;
      if (!hang) res.writeHead(req.url === '/fail' ? 500 : 204).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const request = (path: string, host = '127.0.0.1') => ({ url: `http://${host}:${port}${path}`, headers: { 'content-type': 'application/json' }, body: '{}' });
  const loopback = targetAddressPolicy([parseAllowEntry('127.0.0.0/8') as AllowEntry]);

  it('refuses a name that resolves to a forbidden address at connection time, before any byte is sent', async () => {
    const before = hits;
    await expect(new WebhookSender(targetAddressPolicy([]), 2000).send(request('/', 'localhost'))).resolves.toMatchObject({ ok: false, refused: true });
    await expect(new WebhookSender(targetAddressPolicy([]), 2000).send(request('/'))).resolves.toMatchObject({ ok: false, refused: true });
    expect(hits).toBe(before);
  });

  it('delivers to an allowed address and tells a 2xx from a failure', async () => {
    const sender = new WebhookSender(loopback, 2000);
    await expect(sender.send(request('/'))).resolves.toEqual({ ok: true, status: 204 });
    await expect(sender.send(request('/fail'))).resolves.toEqual({ ok: false, error: 'answered 500' });
  });

  it('gives up on a receiver that does not answer within the timeout', async () => {
    hang = true;
    const started = Date.now();
    const outcome = await new WebhookSender(loopback, 300).send(request('/'));
    hang = false;
    expect(outcome).toMatchObject({ ok: false });
    expect(Date.now() - started).toBeLessThan(2000);
  });
});
