import http, { type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { HttpClientTransport, RESPONSE_TOO_LARGE_CODE, UpstreamHttpError } from './http-client.transport';

const LIMITS = { maxMessageBytes: 10_000, maxErrorBodyBytes: 64, maxHeaderBytes: 16 * 1024 };
const CALL: JSONRPCMessage = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'x' } };

/** A real HTTP upstream whose every POST is answered by `answer`; counts what it managed to write. */
async function upstream(answer: (res: ServerResponse) => void) {
  const server = http.createServer((req, res) => {
    req.resume();
    req.once('end', () => answer(res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`),
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

async function sendOnce(answer: (res: ServerResponse) => void) {
  const server = await upstream(answer);
  const transport = new HttpClientTransport(server.url, LIMITS);
  const received: JSONRPCMessage[] = [];
  transport.onmessage = (m) => void received.push(m);
  transport.onerror = () => undefined;
  await transport.start();
  try {
    const error = await transport.send(CALL).then(() => undefined, (e: unknown) => e);
    // An SSE answer arrives after send() returns: wait for it (bounded).
    for (let waited = 0; error === undefined && received.length === 0 && waited < 5000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
    return { error, received };
  } finally {
    await transport.close();
    await server.close();
  }
}

describe('HttpClientTransport read limits (real HTTP)', () => {
  it('refuses a JSON body over the limit, declared or streamed, without reading it', async () => {
    const big = JSON.stringify({ jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'x'.repeat(50_000) }] } });
    const declared = await sendOnce((res) => res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(big) }).end(big));
    expect(declared.error).toBeInstanceOf(UpstreamHttpError);
    expect((declared.error as Error).message).toContain('exceeds the edge\'s limit of 10000 bytes');
    const chunked = await sendOnce((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      for (let i = 0; i < 10; i += 1) res.write(big.slice(i * 5000, (i + 1) * 5000));
      res.end(big.slice(50_000));
    });
    expect((chunked.error as Error).message).toContain('exceeded the edge\'s limit of 10000 bytes');
    expect(declared.received).toEqual([]);
  });

  it('keeps only the start of an error body, and out of the message', async () => {
    const { error } = await sendOnce((res) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`DB_PASSWORD=hunter2 ${'trace '.repeat(10_000)}`));
    expect(error).toMatchObject({ status: 500, message: 'HTTP 500 from the upstream' });
    expect((error as UpstreamHttpError).body?.length).toBeLessThanOrEqual(LIMITS.maxErrorBodyBytes);
  });

  it('answers the request with an error when one SSE event passes the limit, and drops the stream', async () => {
    const { error, received } = await sendOnce((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: message\ndata: {"jsonrpc":"2.0","id":7,"result":{"text":"');
      const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write('y'.repeat(4096))), 1);
    });
    expect(error).toBeUndefined();
    expect(received).toEqual([{ jsonrpc: '2.0', id: 7, error: { code: RESPONSE_TOO_LARGE_CODE, message: "the upstream's response exceeded the edge's limit of 10000 bytes" } }]);
  });
});
