import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { HttpClientTransport } from './http-client.transport';
import { StatelessUpstreamTransport, type UpstreamEra } from './stateless-client.transport';

type Answer = (body: { id?: unknown; method?: string }, res: http.ServerResponse) => void;

/** A real HTTP upstream answering each POSTed message with `answer`; records the methods it was sent. */
async function upstream(answer: Answer) {
  const methods: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { id?: unknown; method?: string };
      methods.push(body.method ?? req.method ?? '');
      answer(body, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    methods,
    url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`),
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

function json(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

/** A session-era server's handshake answer; anything else it is sent after that gets an empty result. */
function legacy(body: { id?: unknown; method?: string }, res: http.ServerResponse): void {
  if (body.method === 'initialize') {
    json(res, 200, { jsonrpc: '2.0', id: body.id, result: { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'old', version: '1' } } }, { 'mcp-session-id': 's-1' });
  } else if (body.id === undefined) {
    res.writeHead(202).end();
  } else {
    json(res, 200, { jsonrpc: '2.0', id: body.id, result: {} });
  }
}

async function connect(url: URL, probeTimeoutMs?: number) {
  const eras: UpstreamEra[] = [];
  const transport = new StatelessUpstreamTransport(new HttpClientTransport(url), { remember: (era) => void eras.push(era) }, probeTimeoutMs);
  const client = new Client({ name: 'probe-spec', version: '1' }, { capabilities: {} });
  const connected = await client.connect(transport).then(() => undefined, (error: Error) => error);
  return { client, transport, eras, connected };
}

describe('probing an upstream for 2026-07-28 before the handshake', () => {
  it('falls back to initialize when server/discover is refused without a modern error, and keeps the session', async () => {
    const server = await upstream((body, res) => {
      if (body.method === 'server/discover') return json(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Bad Request: No valid session ID provided' } });
      legacy(body, res);
    });
    const { client, transport, eras, connected } = await connect(server.url);
    try {
      expect(connected).toBeUndefined();
      expect(eras).toEqual(['session']);
      expect(transport.revision).toBe('session');
      expect(transport.sessionId).toBe('s-1');
      expect(client.getServerVersion()).toEqual({ name: 'old', version: '1' });
      expect(server.methods.slice(0, 2)).toEqual(['server/discover', 'initialize']);
    } finally {
      await client.close();
      await server.close();
    }
  });

  it('falls back to initialize when the probe goes unanswered', async () => {
    const server = await upstream((body, res) => {
      if (body.method === 'server/discover') return; // silence, as some older servers keep
      legacy(body, res);
    });
    const { client, eras, connected } = await connect(server.url, 200);
    try {
      expect(connected).toBeUndefined();
      expect(eras).toEqual(['session']);
    } finally {
      await client.close();
      await server.close();
    }
  });

  it("does not fall back when a 2026 server refuses the probe with the revision's own error, and says why", async () => {
    const server = await upstream((body, res) => {
      json(res, 400, { jsonrpc: '2.0', id: body.id, error: { code: -32022, message: 'Unsupported protocol version', data: { supported: ['2027-03-01'], requested: '2026-07-28' } } });
    });
    const { client, eras, connected } = await connect(server.url);
    try {
      expect(connected?.message).toContain('-32022');
      expect(eras).toEqual([]);
      expect(server.methods).toEqual(['server/discover']);
    } finally {
      await client.close();
      await server.close();
    }
  });
});
