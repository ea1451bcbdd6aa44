/**
 * A fault-injecting HTTP proxy for the bank (tests only). It sits between the edge and a running
 * bank and, on request, makes a tool fail after the bank ran it, answer slowly, or changes what
 * tools/list says about a tool (upstream drift) and announces it with notifications/tools/list_changed.
 * Everything else passes through untouched, so the bank's /stats still counts what reached it.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

interface ToolFault {
  /** Answer with this JSON-RPC error after the bank ran the call, this many times. */
  failAfterForward?: { times: number; code: number; message: string };
  /** Hold the call this long before passing it on. */
  delayMs?: number;
}

export interface FaultProxyHandle {
  url: string;
  port: number;
  /** The next `times` calls of `tool` reach the bank but come back as a JSON-RPC error. */
  failAfterForward(tool: string, times: number, code?: number, message?: string): void;
  delay(tool: string, ms: number): void;
  /** From now on tools/list reports this change to `tool`; open GET streams hear list_changed unless `announce` is false. */
  drift(tool: string, change: { description?: string; inputSchema?: Record<string, unknown> }, announce?: boolean): void;
  clear(): void;
  close(): Promise<void>;
}

type Json = Record<string, unknown>;

function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** The JSON-RPC messages in a response body, whether it came as JSON or as server-sent events. */
function messagesIn(contentType: string, body: string): Json[] {
  if (!contentType.includes('text/event-stream')) return body ? [JSON.parse(body) as Json] : [];
  return body.split('\n').filter((l) => l.startsWith('data:')).map((l) => JSON.parse(l.slice(5).trim()) as Json);
}

export async function startFaultProxy(target: string): Promise<FaultProxyHandle> {
  const upstream = new URL(target);
  const faults = new Map<string, ToolFault>();
  const drifts = new Map<string, { description?: string; inputSchema?: Record<string, unknown> }>();
  const streams = new Set<http.ServerResponse>();

  const forward = (req: http.IncomingMessage, body: Buffer | undefined) =>
    new Promise<http.IncomingMessage>((resolve, reject) => {
      const headers = { ...req.headers, host: upstream.host };
      const out = http.request({ host: upstream.hostname, port: upstream.port, path: upstream.pathname, method: req.method, headers }, resolve);
      out.on('error', reject);
      out.end(body);
    });

  const collect = async (res: http.IncomingMessage) => (await readBody(res)).toString('utf8');

  const rewriteList = (message: Json): Json => {
    const result = message.result as { tools?: Json[] } | undefined;
    if (!result?.tools) return message;
    const tools = result.tools.map((t) => ({ ...t, ...(drifts.get(t.name as string) ?? {}) }));
    return { ...message, result: { ...result, tools } };
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const body = req.method === 'POST' ? await readBody(req) : undefined;
    const message = body && body.length > 0 ? (JSON.parse(body.toString('utf8')) as Json) : undefined;
    const tool = message?.method === 'tools/call' ? ((message.params as Json | undefined)?.name as string) : undefined;
    const fault = tool ? faults.get(tool) : undefined;
    if (fault?.delayMs) await new Promise((resolve) => setTimeout(resolve, fault.delayMs));
    const answer = await forward(req, body);
    if (fault?.failAfterForward && fault.failAfterForward.times > 0) {
      fault.failAfterForward.times -= 1;
      await collect(answer);
      const { code, message: text } = fault.failAfterForward;
      const error = JSON.stringify({ jsonrpc: '2.0', id: message?.id ?? null, error: { code, message: text } });
      res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': String(answer.headers['mcp-session-id'] ?? '') }).end(error);
      return;
    }
    if (message?.method === 'tools/list' && drifts.size > 0) {
      const replies = messagesIn(String(answer.headers['content-type'] ?? ''), await collect(answer)).map(rewriteList);
      res.writeHead(answer.statusCode ?? 200, { 'content-type': 'application/json' }).end(JSON.stringify(replies.length === 1 ? replies[0] : replies));
      return;
    }
    res.writeHead(answer.statusCode ?? 200, answer.headers);
    if (req.method === 'GET') {
      streams.add(res);
      res.on('close', () => streams.delete(res));
    }
    answer.pipe(res);
  };

  const server = http.createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(502).end();
      else res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const fault = (tool: string): ToolFault => faults.get(tool) ?? faults.set(tool, {}).get(tool)!;
  return {
    url: `http://127.0.0.1:${port}${upstream.pathname}`,
    port,
    failAfterForward: (tool, times, code = -32603, message = 'transient upstream failure') => {
      fault(tool).failAfterForward = { times, code, message };
    },
    delay: (tool, ms) => {
      fault(tool).delayMs = ms;
    },
    drift: (tool, change, announce = true) => {
      drifts.set(tool, change);
      if (!announce) return;
      const note = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
      for (const stream of streams) stream.write(`event: message\ndata: ${note}\n\n`);
    },
    clear: () => {
      faults.clear();
      drifts.clear();
    },
    close: async () => {
      for (const stream of streams) stream.end();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
