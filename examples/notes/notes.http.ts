import { randomUUID } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { createNotesMcpServer } from './notes.server';

export interface NotesServerHandle {
  url: string;
  close(): Promise<void>;
}

function reply(res: http.ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message } }));
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
 * Serves the notes server over Streamable HTTP on 127.0.0.1 (one McpServer per session); `create`
 * serves another server the same way. `onServer` hands out each session's server, so a test can
 * make it announce list changes.
 */
export async function startNotesServer(
  options: { name?: string; port?: number; create?: (name?: string) => McpServer; onServer?: (server: McpServer) => void } = {},
): Promise<NotesServerHandle> {
  const create = options.create ?? createNotesMcpServer;
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const handle = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const id = req.headers['mcp-session-id'];
    const existing = typeof id === 'string' ? sessions.get(id) : undefined;
    if (req.method !== 'POST') {
      if (!existing) return reply(res, 404, 'Session not found');
      return existing.handleRequest(req, res);
    }
    const body = await readJson(req).catch(() => undefined);
    if (existing) return existing.handleRequest(req, res, body);
    // A session this server does not know (it restarted, or closed it): 404, so the client starts a new one.
    if (typeof id === 'string' && !isInitializeRequest(body)) return reply(res, 404, 'Session not found');
    if (!isInitializeRequest(body)) return reply(res, 400, 'Bad Request: initialize first');
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => void sessions.set(sid, transport),
      onsessionclosed: (sid) => void sessions.delete(sid),
    });
    const mcp = create(options.name);
    options.onServer?.(mcp);
    await mcp.connect(transport);
    return transport.handleRequest(req, res, body);
  };
  const server = http.createServer((req, res) => void handle(req, res).catch(() => reply(res, 500, 'Internal error')));
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: async () => {
      await Promise.allSettled([...sessions.values()].map((t) => t.close()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
