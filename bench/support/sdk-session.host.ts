import { randomUUID } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';

function reply(res: http.ServerResponse, status: number, message: string): void {
  const text = JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message } });
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
}

function readJson(req: http.IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch (error) {
        reject(error);
      }
    });
    req.on('error', reject);
  });
}

/**
 * The SDK's documented stateful Streamable HTTP pattern and nothing more: one SDK `Server` and
 * transport per session, on 127.0.0.1. The bench's zero-work upstream and the plain pass-through
 * both sit on it, so neither carries any of the edge's checks.
 */
export async function hostSdkSessions(createServer: () => Server, port = 0): Promise<{ url: string; sessions: () => number }> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const header = req.headers['mcp-session-id'];
    const existing = typeof header === 'string' ? sessions.get(header) : undefined;
    if (req.method !== 'POST') {
      if (!existing) return reply(res, 404, 'Session not found');
      return existing.handleRequest(req, res);
    }
    const body = await readJson(req);
    if (existing) return existing.handleRequest(req, res, body);
    if (typeof header === 'string') return reply(res, 404, 'Session not found');
    if (!isInitializeRequest(body)) return reply(res, 400, 'Bad Request: initialize first');
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, transport),
      onsessionclosed: (id) => void sessions.delete(id),
    });
    await createServer().connect(transport);
    return transport.handleRequest(req, res, body);
  };
  const server = http.createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      process.stderr.write(`bench host: ${error instanceof Error ? error.message : String(error)}\n`);
      if (!res.headersSent) reply(res, 500, 'Internal error');
      else res.end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, sessions: () => sessions.size };
}

/** Child entry points announce where they listen with one JSON line on stdout. */
export function announce(url: string): void {
  process.stdout.write(`${JSON.stringify({ url })}\n`);
}
