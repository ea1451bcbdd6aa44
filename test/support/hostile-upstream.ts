import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A malicious upstream MCP server on raw node:http, speaking just enough Streamable HTTP (JSON
 * answers, one GET stream) to be connected to, and then misbehaving in the ways the SDK's own
 * server would refuse to: oversized streams, leaking error bodies, forged `_meta`, answers for
 * other servers' URIs, hidden instructions.
 */
export interface HostileTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
}

export type ToolBehaviour = (res: ServerResponse, id: unknown, params: Record<string, unknown>) => void | Promise<void>;

export interface HostileUpstream {
  url: string;
  tools: HostileTool[];
  /** tools/call behaviour by tool name. */
  behaviours: Map<string, ToolBehaviour>;
  resources: Array<{ uri: string; name: string; description?: string }>;
  reads: Map<string, Array<{ uri: string; text: string }>>;
  prompts: Array<{ name: string; description?: string }>;
  promptMessages: Map<string, string>;
  templates: Array<{ uriTemplate: string; name: string; description?: string }>;
  /** What every completion/complete is answered with. */
  completions: string[];
  /** Sends a notification on every open GET stream (log messages reach the edge this way). */
  notify(method: string, params: Record<string, unknown>): void;
  /** How many bytes the last streamed flood got out before the edge hung up. */
  flooded: number;
  close(): Promise<void>;
}

export function reply(res: ServerResponse, id: unknown, result: unknown): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', id, result }));
}

export function replyError(res: ServerResponse, id: unknown, code: number, message: string): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } }));
}

async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
}

/** One SSE event that never ends: `total` bytes of data with no blank line, written as fast as the edge reads. */
export function floodBehaviour(upstream: { flooded: number }, total: number): ToolBehaviour {
  return async (res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('event: message\ndata: {"jsonrpc":"2.0","id":0,"result":{"content":[{"type":"text","text":"');
    const chunk = 'A'.repeat(1024 * 1024);
    upstream.flooded = 0;
    while (upstream.flooded < total && !res.destroyed) {
      const more = res.write(chunk);
      upstream.flooded += chunk.length;
      if (!more) await new Promise((resolve) => { res.once('drain', resolve); res.once('close', resolve); });
    }
    res.end();
  };
}

export async function startHostileUpstream(): Promise<HostileUpstream> {
  const upstream: HostileUpstream = {
    url: '', tools: [], behaviours: new Map(), resources: [], reads: new Map(), prompts: [], promptMessages: new Map(), flooded: 0,
    templates: [], completions: [], notify: () => undefined, close: async () => undefined,
  };
  const streams = new Set<ServerResponse>();
  upstream.notify = (method, params) => {
    for (const stream of streams) stream.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method, params })}\n\n`);
  };
  const answer = async (method: string, params: Record<string, unknown>, id: unknown, res: ServerResponse) => {
    switch (method) {
      case 'initialize':
        res.setHeader('mcp-session-id', 'hostile-session');
        return reply(res, id, {
          protocolVersion: params.protocolVersion, serverInfo: { name: 'hostile', version: '6.6.6' },
          capabilities: { tools: { listChanged: true }, resources: {}, prompts: {}, completions: {}, logging: {} },
        });
      case 'tools/list':
        return reply(res, id, { tools: upstream.tools });
      case 'tools/call': {
        const behaviour = upstream.behaviours.get(String(params.name));
        if (behaviour) return behaviour(res, id, params);
        return reply(res, id, { content: [{ type: 'text', text: `ran ${String(params.name)}` }] });
      }
      case 'resources/list':
        return reply(res, id, { resources: upstream.resources });
      case 'resources/templates/list':
        return reply(res, id, { resourceTemplates: upstream.templates });
      case 'completion/complete':
        return reply(res, id, { completion: { values: upstream.completions, total: upstream.completions.length, hasMore: false } });
      case 'logging/setLevel':
        return reply(res, id, {});
      case 'resources/read':
        return reply(res, id, { contents: (upstream.reads.get(String(params.uri)) ?? []).map((c) => ({ ...c, mimeType: 'text/plain' })) });
      case 'prompts/list':
        return reply(res, id, { prompts: upstream.prompts });
      case 'prompts/get':
        return reply(res, id, { messages: [{ role: 'user', content: { type: 'text', text: upstream.promptMessages.get(String(params.name)) ?? '' } }] });
      default:
        return replyError(res, id, -32601, `Method not found: ${method}`);
    }
  };
  const server = http.createServer((req, res) => {
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': open\n\n');
      streams.add(res);
      res.once('close', () => streams.delete(res));
      return;
    }
    if (req.method === 'DELETE') return void res.writeHead(200).end();
    readBody(req).then(async (message) => {
      if (message.id === undefined) return void res.writeHead(202).end();
      await answer(String(message.method), (message.params ?? {}) as Record<string, unknown>, message.id, res);
    }).catch(() => res.writeHead(400).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  upstream.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  upstream.close = async () => {
    for (const s of streams) s.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return upstream;
}
