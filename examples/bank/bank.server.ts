/**
 * "bank": a small sample upstream MCP server for Estate (examples, tests, docker compose).
 *
 * Tools (one per side-effect class the edge's policy cares about):
 *   lookup   read-only    {reference: "PMT-<digits>"}          → the payment (text JSON + structuredContent)
 *   transfer write        {from, to, amount ≥ 1, currency}      → a confirmation id
 *   release  destructive  {reference}                           → the released payment
 *
 * tools/list advertises each tool's title, description and input schema exactly as the estate
 * publishes them (bank.specs.ts), so the edge's drift check finds the versions it routes here in
 * agreement from the first read; the zod schemas below only validate the calls.
 *
 * Transports: Streamable HTTP at /mcp (stateful: one McpServer + transport per session) and
 * stdio (see main.ts --stdio). Every `tools/call` that reaches the HTTP endpoint is counted,
 * valid or not, before the SDK looks at it: GET /stats → {calls: {lookup: n, …}, total},
 * POST /stats/reset. Tests use it to prove the edge never forwarded a refused call.
 * GET /healthz answers 200 (container health checks).
 */
import { randomUUID } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer, type RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest, ListToolsRequestSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import pino, { type Logger } from 'pino';
import { z } from 'zod';
import { bankSpecs } from './bank.specs';

export const BANK_TOOLS = ['lookup', 'transfer', 'release'] as const;
export type BankToolName = (typeof BANK_TOOLS)[number];
export const CURRENCIES = ['EUR', 'USD', 'GBP', 'CHF'] as const;

export interface BankStats {
  calls: Record<string, number>;
  total: number;
}

export class CallCounter {
  private calls: Record<string, number> = {};
  private total = 0;

  constructor() {
    this.reset();
  }

  hit(tool: string): void {
    this.calls[tool] = (this.calls[tool] ?? 0) + 1;
    this.total += 1;
  }

  reset(): void {
    this.calls = Object.fromEntries(BANK_TOOLS.map((t) => [t, 0]));
    this.total = 0;
  }

  snapshot(): BankStats {
    return { calls: { ...this.calls }, total: this.total };
  }
}

/** Writes logs to stderr only (stdout belongs to the stdio transport). */
export function bankLogger(level = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({ name: 'bank', level }, pino.destination(2));
}

const STATUSES = ['settled', 'pending', 'held'] as const;
const COUNTERPARTIES = ['ACME Ltd', 'Globex GmbH', 'Initech SA', 'Umbrella plc', 'Hooli Inc'];

function payment(reference: string) {
  const n = Number(reference.slice('PMT-'.length));
  return {
    reference,
    status: STATUSES[n % STATUSES.length],
    amount: ((n * 7919) % 99_900) + 100,
    currency: CURRENCIES[n % 3],
    counterparty: COUNTERPARTIES[n % COUNTERPARTIES.length],
  };
}

/** The published contract of each tool, by the bank's own tool name: what tools/list advertises. */
const PUBLISHED = new Map(bankSpecs().map((spec) => [spec.upstream.tool, spec]));

function published(tool: BankToolName) {
  const spec = PUBLISHED.get(tool);
  if (!spec) throw new Error(`bank: no published spec for ${tool}`);
  return spec;
}

const reference = z.string().regex(/^PMT-[0-9]+$/);

function json(value: Record<string, unknown>) {
  return { content: [{ type: 'text' as const, text: JSON.stringify(value) }], structuredContent: value };
}

function notFound(ref: string) {
  return { isError: true, content: [{ type: 'text' as const, text: `Payment ${ref} not found` }] };
}

/** One McpServer with the three bank tools. Create one per session. */
export function createBankMcpServer(log: Logger = bankLogger('silent')): McpServer {
  const server = new McpServer({ name: 'bank', version: '1.0.0' }, { capabilities: { tools: {} } });
  let confirmations = 0;

  const tools: Partial<Record<BankToolName, RegisteredTool>> = {};
  tools.lookup = server.registerTool(
    'lookup',
    {
      title: published('lookup').title,
      description: published('lookup').description,
      inputSchema: { reference },
      outputSchema: {
        reference: z.string(),
        status: z.enum(STATUSES),
        amount: z.number().int(),
        currency: z.enum(CURRENCIES),
        counterparty: z.string(),
      },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ reference: ref }) => {
      log.debug({ tool: 'lookup', reference: ref }, 'call');
      if (/^PMT-0+$/.test(ref)) return notFound(ref);
      return json(payment(ref));
    },
  );

  tools.transfer = server.registerTool(
    'transfer',
    {
      title: published('transfer').title,
      description: published('transfer').description,
      inputSchema: {
        from: z.string().min(1),
        to: z.string().min(1),
        amount: z.number().int().min(1),
        currency: z.enum(CURRENCIES),
      },
      outputSchema: {
        confirmation: z.string(),
        status: z.literal('accepted'),
        from: z.string(),
        to: z.string(),
        amount: z.number().int(),
        currency: z.enum(CURRENCIES),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    async ({ from, to, amount, currency }) => {
      confirmations += 1;
      const confirmation = `TRF-${Date.now().toString(36).toUpperCase()}-${confirmations}`;
      log.info({ tool: 'transfer', from, to, amount, currency, confirmation }, 'transfer accepted');
      return json({ confirmation, status: 'accepted', from, to, amount, currency });
    },
  );

  tools.release = server.registerTool(
    'release',
    {
      title: published('release').title,
      description: published('release').description,
      inputSchema: { reference },
      outputSchema: { reference: z.string(), status: z.literal('released') },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ reference: ref }) => {
      if (/^PMT-0+$/.test(ref)) return notFound(ref);
      log.info({ tool: 'release', reference: ref }, 'payment released');
      return json({ reference: ref, status: 'released' });
    },
  );

  advertisePublishedSchemas(server, tools);
  return server;
}

/**
 * Replaces the SDK's tools/list answer, whose input schemas are generated from zod (a `$schema`
 * key, `type` on every enum, integer bounds, no `additionalProperties`), with one that carries
 * the published JSON Schema verbatim. Everything else is listed as the SDK would list it.
 */
function advertisePublishedSchemas(server: McpServer, tools: Partial<Record<BankToolName, RegisteredTool>>): void {
  server.server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: BANK_TOOLS.flatMap((name): Tool[] => {
      const tool = tools[name];
      if (!tool?.enabled) return [];
      const advertised: Tool = {
        name,
        title: tool.title,
        description: tool.description,
        inputSchema: published(name).inputSchema as Tool['inputSchema'],
        annotations: tool.annotations,
        execution: tool.execution,
        _meta: tool._meta,
      };
      if (tool.outputSchema) advertised.outputSchema = z.toJSONSchema(tool.outputSchema as z.ZodType, { target: 'draft-7', io: 'output' }) as Tool['outputSchema'];
      return [advertised];
    }),
  }));
}

export interface BankServerOptions {
  port?: number;
  host?: string;
  logger?: Logger;
  /** Sessions idle longer than this are closed (SDK clients never send DELETE). Default 10 min. */
  sessionIdleMs?: number;
}

export interface BankServerHandle {
  /** Base URL of the MCP endpoint, e.g. http://127.0.0.1:9100/mcp */
  url: string;
  port: number;
  stats(): BankStats;
  resetStats(): void;
  sessionCount(): number;
  close(): Promise<void>;
}

interface Session {
  server: McpServer;
  transport: StreamableHTTPServerTransport;
  lastSeen: number;
}

function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function rpcError(res: http.ServerResponse, status: number, code: number, message: string): void {
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id: null });
}

function readBody(req: http.IncomingMessage, limit = 4 * 1024 * 1024): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        reject(new Error('body too large'));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function toolCallsIn(body: unknown): string[] {
  const messages = Array.isArray(body) ? body : [body];
  const names: string[] = [];
  for (const m of messages) {
    if (m && typeof m === 'object' && (m as { method?: unknown }).method === 'tools/call') {
      const name = (m as { params?: { name?: unknown } }).params?.name;
      names.push(typeof name === 'string' ? name : '(invalid)');
    }
  }
  return names;
}

/** Starts the bank over Streamable HTTP. port 0 (default) picks a free port. */
export async function startBankServer(opts: BankServerOptions = {}): Promise<BankServerHandle> {
  const host = opts.host ?? '127.0.0.1';
  const log = opts.logger ?? bankLogger(process.env.LOG_LEVEL ?? 'warn');
  const idleMs = opts.sessionIdleMs ?? 10 * 60_000;
  const counter = new CallCounter();
  const sessions = new Map<string, Session>();

  const closeSession = async (id: string) => {
    const s = sessions.get(id);
    if (!s) return;
    sessions.delete(id);
    await s.transport.close().catch(() => undefined);
    await s.server.close().catch(() => undefined);
  };

  const handleMcp = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const sid = req.headers['mcp-session-id'];
    const sessionId = typeof sid === 'string' ? sid : undefined;
    if (req.method === 'POST') {
      let body: unknown;
      try {
        body = JSON.parse(await readBody(req));
      } catch {
        return rpcError(res, 400, -32700, 'Parse error');
      }
      for (const name of toolCallsIn(body)) counter.hit(name);
      if (sessionId) {
        const s = sessions.get(sessionId);
        if (!s) return rpcError(res, 404, -32001, 'Session not found');
        s.lastSeen = Date.now();
        return s.transport.handleRequest(req, res, body);
      }
      if (!isInitializeRequest(body)) {
        return rpcError(res, 400, -32000, 'Bad Request: no valid session id provided');
      }
      const server = createBankMcpServer(log);
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          sessions.set(id, { server, transport, lastSeen: Date.now() });
          log.debug({ session: id }, 'session opened');
        },
        onsessionclosed: (id) => {
          void closeSession(id);
        },
      });
      transport.onclose = () => {
        if (transport.sessionId) sessions.delete(transport.sessionId);
      };
      await server.connect(transport);
      return transport.handleRequest(req, res, body);
    }
    if (req.method === 'GET' || req.method === 'DELETE') {
      const s = sessionId ? sessions.get(sessionId) : undefined;
      if (!sessionId) return rpcError(res, 400, -32000, 'Bad Request: no valid session id provided');
      if (!s) return rpcError(res, 404, -32001, 'Session not found');
      s.lastSeen = Date.now();
      return s.transport.handleRequest(req, res);
    }
    res.writeHead(405, { allow: 'GET, POST, DELETE' }).end();
  };

  const httpServer = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const done = (err: unknown) => {
      log.error({ err, path }, 'request failed');
      if (!res.headersSent) rpcError(res, 500, -32603, 'Internal error');
      else res.end();
    };
    try {
      if (path === '/mcp') {
        handleMcp(req, res).catch(done);
      } else if (path === '/stats' && req.method === 'GET') {
        sendJson(res, 200, counter.snapshot());
      } else if (path === '/stats/reset' && req.method === 'POST') {
        counter.reset();
        sendJson(res, 200, counter.snapshot());
      } else if (path === '/healthz' && req.method === 'GET') {
        sendJson(res, 200, { status: 'ok', sessions: sessions.size });
      } else {
        sendJson(res, 404, { error: 'not found' });
      }
    } catch (err) {
      done(err);
    }
  });

  const sweeper = setInterval(
    () => {
      const now = Date.now();
      for (const [id, s] of sessions) if (now - s.lastSeen > idleMs) void closeSession(id);
    },
    Math.min(idleMs, 60_000),
  );
  sweeper.unref();

  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(opts.port ?? 0, host, () => {
      httpServer.off('error', reject);
      resolve();
    });
  });
  const port = (httpServer.address() as AddressInfo).port;
  const urlHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  const url = `http://${urlHost}:${port}/mcp`;
  log.info({ url }, 'bank listening');

  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    stats: () => counter.snapshot(),
    resetStats: () => counter.reset(),
    sessionCount: () => sessions.size,
    close() {
      closing ??= (async () => {
        clearInterval(sweeper);
        await Promise.all([...sessions.keys()].map(closeSession));
        await new Promise<void>((resolve) => {
          httpServer.close(() => resolve());
          httpServer.closeAllConnections();
        });
      })();
      return closing;
    },
  };
}
