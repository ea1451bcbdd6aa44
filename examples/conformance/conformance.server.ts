/**
 * "conformance": an upstream MCP server that serves what the official conformance suite expects
 * of a server (tools, resources, prompts, completion, logging), so that the estate can publish
 * its tools through the registry and the suite can be pointed at the edge instead of at it.
 *
 * Streamable HTTP at /mcp, one low-level SDK `Server` per session. Logs go to stderr only.
 */
import { randomUUID } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema, CompleteRequestSchema, GetPromptRequestSchema, ListPromptsRequestSchema, ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema, ListToolsRequestSchema, ReadResourceRequestSchema, SubscribeRequestSchema, UnsubscribeRequestSchema,
  isInitializeRequest,
} from '@modelcontextprotocol/sdk/types.js';
import pino, { type Logger } from 'pino';
import { PIXEL_PNG, TOOL_HANDLERS } from './conformance.handlers';
import { FIXTURE_TOOLS } from './conformance.tools';

const RESOURCES = [
  { uri: 'test://static-text', name: 'static-text', description: 'A fixed text resource', mimeType: 'text/plain' },
  { uri: 'test://static-binary', name: 'static-binary', description: 'A fixed PNG resource', mimeType: 'image/png' },
  { uri: 'test://watched-resource', name: 'watched-resource', description: 'A resource clients may subscribe to', mimeType: 'text/plain' },
];
const TEMPLATE = { uriTemplate: 'test://template/{id}/data', name: 'template-data', description: 'Data for one id', mimeType: 'application/json' };
const TEMPLATE_URI = /^test:\/\/template\/([^/]+)\/data$/;

const PROMPTS = [
  { name: 'test_simple_prompt', description: 'A prompt without arguments' },
  {
    name: 'test_prompt_with_arguments', description: 'A prompt that quotes its two arguments',
    arguments: [{ name: 'arg1', description: 'First value', required: true }, { name: 'arg2', description: 'Second value', required: true }],
  },
  { name: 'test_prompt_with_embedded_resource', description: 'A prompt that embeds a resource', arguments: [{ name: 'resourceUri', description: 'URI to embed', required: true }] },
  { name: 'test_prompt_with_image', description: 'A prompt that carries an image' },
];

function readResource(uri: string) {
  if (uri === 'test://static-text') return { contents: [{ uri, mimeType: 'text/plain', text: 'Static text resource.' }] };
  if (uri === 'test://static-binary') return { contents: [{ uri, mimeType: 'image/png', blob: PIXEL_PNG }] };
  if (uri === 'test://watched-resource') return { contents: [{ uri, mimeType: 'text/plain', text: 'Watched resource.' }] };
  const match = TEMPLATE_URI.exec(uri);
  if (match) return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify({ id: match[1] }) }] };
  throw Object.assign(new Error(`Resource not found: ${uri}`), { code: -32002 });
}

function getPrompt(name: string, args: Record<string, string>) {
  const user = (content: Record<string, unknown>) => ({ role: 'user' as const, content });
  switch (name) {
    case 'test_simple_prompt':
      return { messages: [user({ type: 'text', text: 'This is a simple prompt.' })] };
    case 'test_prompt_with_arguments':
      return { messages: [user({ type: 'text', text: `First: ${args.arg1}; second: ${args.arg2}` })] };
    case 'test_prompt_with_embedded_resource':
      return {
        messages: [
          user({ type: 'resource', resource: { uri: args.resourceUri, mimeType: 'text/plain', text: 'Embedded for the prompt.' } }),
          user({ type: 'text', text: 'Use the resource above.' }),
        ],
      };
    case 'test_prompt_with_image':
      return { messages: [user({ type: 'image', data: PIXEL_PNG, mimeType: 'image/png' }), user({ type: 'text', text: 'Describe the image.' })] };
    default:
      throw Object.assign(new Error(`Unknown prompt: ${name}`), { code: -32602 });
  }
}

export function createConformanceMcpServer(): Server {
  const server = new Server(
    { name: 'estate-conformance-fixture', version: '1.0.0' },
    { capabilities: { tools: {}, resources: { subscribe: true }, prompts: {}, completions: {}, logging: {} } },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: FIXTURE_TOOLS.map((t) => ({ ...t })) }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const handler = TOOL_HANDLERS[request.params.name];
    if (!handler) throw Object.assign(new Error(`Unknown tool: ${request.params.name}`), { code: -32601 });
    return handler(request.params.arguments ?? {}, extra);
  });
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: RESOURCES }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({ resourceTemplates: [TEMPLATE] }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => readResource(request.params.uri));
  server.setRequestHandler(SubscribeRequestSchema, async () => ({}));
  server.setRequestHandler(UnsubscribeRequestSchema, async () => ({}));
  server.setRequestHandler(ListPromptsRequestSchema, async () => ({ prompts: PROMPTS }));
  server.setRequestHandler(GetPromptRequestSchema, async (request) => getPrompt(request.params.name, request.params.arguments ?? {}));
  server.setRequestHandler(CompleteRequestSchema, async (request) => {
    const values = ['paris', 'park', 'party'].filter((v) => v.startsWith(request.params.argument.value));
    return { completion: { values, total: values.length, hasMore: false } };
  });
  return server;
}

export interface ConformanceServerHandle {
  url: string;
  close(): Promise<void>;
}

function readJson(req: http.IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      try {
        resolve(raw ? JSON.parse(raw) : undefined);
      } catch (error) {
        reject(error);
      }
    });
    req.on('error', reject);
  });
}

/** Routes each request to its session's transport; a new session starts only with initialize. */
function sessionRouter(sessions: Map<string, StreamableHTTPServerTransport>) {
  return async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const id = req.headers['mcp-session-id'];
    const existing = typeof id === 'string' ? sessions.get(id) : undefined;
    const body = req.method === 'POST' ? await readJson(req) : undefined;
    if (existing) return existing.handleRequest(req, res, body);
    if (req.method !== 'POST' || !isInitializeRequest(body)) {
      res.writeHead(typeof id === 'string' ? 404 : 400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'no such session; initialize first' } }));
      return;
    }
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (sid) => void sessions.set(sid, transport),
      onsessionclosed: (sid) => void sessions.delete(sid),
    });
    await createConformanceMcpServer().connect(transport);
    return transport.handleRequest(req, res, body);
  };
}

export async function startConformanceServer(opts: { port?: number; host?: string; logger?: Logger } = {}): Promise<ConformanceServerHandle> {
  const log = opts.logger ?? pino({ name: 'conformance-fixture', level: process.env.LOG_LEVEL ?? 'info' }, pino.destination(2));
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const handle = sessionRouter(sessions);
  const httpServer = http.createServer((req, res) => {
    if (!req.url?.startsWith('/mcp')) return void res.writeHead(404).end();
    handle(req, res).catch((error: unknown) => {
      log.error({ err: error }, 'request failed');
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => httpServer.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', resolve));
  const url = `http://${opts.host ?? '127.0.0.1'}:${(httpServer.address() as AddressInfo).port}/mcp`;
  log.info({ url }, 'conformance fixture listening');
  return {
    url,
    close: async () => {
      await Promise.allSettled([...sessions.values()].map((t) => t.close()));
      sessions.clear();
      await new Promise<void>((resolve) => {
        httpServer.close(() => resolve());
        httpServer.closeAllConnections();
      });
    },
  };
}
