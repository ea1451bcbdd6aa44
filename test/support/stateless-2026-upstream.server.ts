import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ToolSpec } from '@estate/contracts';
import {
  MCP_META_KEY, STATELESS_PROTOCOL_VERSION, checkInputCapabilities, checkParamHeaders, checkRequestHeaders, paramHeadersOf, completeResult, discoverResult, elicitationAnswer,
  inputRequiredResult, parseRequestMeta, parseRetryInputs, subscriptionAcknowledged, unsupportedProtocolVersionError,
  type InputRequests,
} from '@estate/protocol';

/*
 * A server that speaks only MCP 2026-07-28, on plain node:http, for the edge's outbound tests. It
 * keeps no state between requests except what it hands out in `requestState`, refuses the
 * session revisions' traffic the way the revision says a 2026-only server should (400 naming the
 * versions it speaks for `initialize`, 405 for GET and DELETE), and records every request it saw.
 */

export interface SeenRequest {
  httpMethod: string;
  headers: http.IncomingHttpHeaders;
  body?: Record<string, unknown>;
}

export interface Stateless2026Upstream {
  url: string;
  seen: SeenRequest[];
  /** Calls of `hold` whose stream the client closed. */
  cancelledCalls(): number;
  /** Changes `balance`'s description and announces it on every open subscriptions/listen stream. */
  changeBalanceDescription(description: string): void;
  /** Cuts every open subscriptions/listen stream, as a restart of the server would. */
  dropListenStreams(): void;
  close(): Promise<void>;
}

const SERVER_INFO = { name: 'ledger-2026', version: '1.0.0' };
const ACCOUNT = { type: 'string', pattern: '^ACC-[0-9]+$' };
const INPUT = { type: 'object', properties: { account: ACCOUNT }, required: ['account'], additionalProperties: false };
/** `balance` asks for its account to be mirrored into Mcp-Param-Account, so a router could route on it. */
const BALANCE_INPUT = { ...INPUT, properties: { account: { ...ACCOUNT, 'x-mcp-header': 'Account' } } };
/** The account whose balance asks for input, so a read tool's input_required can be tested. */
export const LOCKED_ACCOUNT = 'ACC-0';
const BALANCE_DESCRIPTION = 'Returns the balance of an account. Read-only.';
const CLOSE_DESCRIPTION = 'Closes an account after the user confirms and gives a reason.';
const COUNT_INPUT = { type: 'object', properties: { to: { type: 'integer', minimum: 1, maximum: 10 } }, required: ['to'], additionalProperties: false };
const COUNT_DESCRIPTION = 'Counts to a number, reporting progress and logging each step.';
const HOLD_INPUT = { type: 'object', properties: {}, additionalProperties: false };
const HOLD_DESCRIPTION = 'Never answers; for cancellation.';
const CONFIRM_SCHEMA = { type: 'object', properties: { reason: { type: 'string' } }, required: ['reason'] };

/** The ledger's tools as the estate publishes them; the contract matches what the server lists. */
export function ledgerSpecs(server: string): ToolSpec[] {
  const common = { requiredScopes: ['ledger:read'], dataClassification: 'internal' as const, tenants: [], owner: 'ledger-team' };
  return [
    { ...common, name: `${server}.balance`, version: '1.0.0', title: 'Account balance', description: BALANCE_DESCRIPTION, inputSchema: BALANCE_INPUT, sideEffect: 'read' as const, upstream: { server, tool: 'balance' } },
    { ...common, name: `${server}.close-account`, version: '1.0.0', title: 'Close an account', description: CLOSE_DESCRIPTION, inputSchema: INPUT, sideEffect: 'write' as const, upstream: { server, tool: 'close-account' } },
    { ...common, name: `${server}.count`, version: '1.0.0', title: 'Count', description: COUNT_DESCRIPTION, inputSchema: COUNT_INPUT, sideEffect: 'read' as const, upstream: { server, tool: 'count' } },
    { ...common, name: `${server}.hold`, version: '1.0.0', title: 'Hold', description: HOLD_DESCRIPTION, inputSchema: HOLD_INPUT, sideEffect: 'read' as const, upstream: { server, tool: 'hold' } },
  ];
}

function send(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

const reply = (id: unknown, result: Record<string, unknown>) => ({ jsonrpc: '2.0', id, result });
const refuse = (id: unknown, error: { code: number; message: string; data?: unknown }) => ({ jsonrpc: '2.0', id: id ?? null, error });

export async function startStateless2026Upstream(): Promise<Stateless2026Upstream> {
  const seen: SeenRequest[] = [];
  const cancelled = { count: 0 };
  const listeners = new Set<{ res: http.ServerResponse; id: unknown }>();
  let balanceDescription = BALANCE_DESCRIPTION;

  const tools = () => [
    { name: 'balance', description: balanceDescription, inputSchema: BALANCE_INPUT },
    { name: 'close-account', description: CLOSE_DESCRIPTION, inputSchema: INPUT },
    { name: 'count', description: COUNT_DESCRIPTION, inputSchema: COUNT_INPUT },
    { name: 'hold', description: HOLD_DESCRIPTION, inputSchema: HOLD_INPUT },
  ];

  /** Answers on an SSE stream: progress (with the request's token) and, when `_meta` asks for a level, log messages, then the result. */
  function count(id: unknown, params: Record<string, unknown>, res: http.ServerResponse, meta: { progressToken?: string | number; logLevel?: string }): void {
    const to = Number((params['arguments'] as { to?: unknown } | undefined)?.to ?? 0);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const event = (message: unknown) => res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
    for (let step = 1; step <= to; step += 1) {
      if (meta.progressToken !== undefined) event({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: meta.progressToken, progress: step, total: to } });
      if (meta.logLevel === 'debug') event({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'debug', data: `step ${step} of ${to}` } });
    }
    event(reply(id, completeResult('tools/call', { content: [{ type: 'text', text: `counted to ${to}` }] })));
    res.end();
  }

  function callTool(id: unknown, params: Record<string, unknown>, capabilities: Record<string, unknown>): { status: number; body: unknown } {
    const args = (params['arguments'] ?? {}) as { account?: unknown };
    const account = String(args.account ?? '');
    if (params['name'] === 'balance') {
      // A locked account's balance needs the user's say-so first (answered or not, it stays locked here).
      if (account === LOCKED_ACCOUNT) {
        const inputRequests: InputRequests = { unlock: { method: 'elicitation/create', params: { mode: 'form', message: `Unlock ${account}?`, requestedSchema: { type: 'object', properties: {} } } } };
        return { status: 200, body: reply(id, inputRequiredResult('tools/call', { inputRequests })) };
      }
      const structured = { account, balance: 1200, currency: 'EUR' };
      return { status: 200, body: reply(id, completeResult('tools/call', { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured })) };
    }
    if (params['name'] !== 'close-account') return { status: 200, body: refuse(id, { code: -32602, message: `Unknown tool: ${String(params['name'])}` }) };
    const retry = parseRetryInputs(params);
    if (!retry.ok) return { status: 400, body: refuse(id, retry.error) };
    const state = Buffer.from(JSON.stringify({ account }), 'utf8').toString('base64url');
    const answer = elicitationAnswer(retry.inputs, 'confirm');
    if (answer.kind === 'invalid') return { status: 400, body: refuse(id, answer.error) };
    if (answer.kind === 'missing' || retry.inputs.requestState !== state) {
      const inputRequests: InputRequests = { confirm: { method: 'elicitation/create', params: { mode: 'form', message: `Close ${account}? Give a reason.`, requestedSchema: CONFIRM_SCHEMA } } };
      const missing = checkInputCapabilities(capabilities, inputRequests);
      if (missing) return { status: 400, body: refuse(id, missing) };
      return { status: 200, body: reply(id, inputRequiredResult('tools/call', { inputRequests, requestState: state })) };
    }
    const text = answer.action === 'accept' ? `closed ${account}: ${String(answer.content?.['reason'])}` : `kept ${account} (${answer.action})`;
    return { status: 200, body: reply(id, completeResult('tools/call', { content: [{ type: 'text', text }] })) };
  }

  function listen(id: unknown, params: Record<string, unknown>, res: http.ServerResponse): void {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
    const filter = (params['notifications'] ?? {}) as { toolsListChanged?: boolean };
    res.write(`event: message\ndata: ${JSON.stringify(subscriptionAcknowledged(id as string, { toolsListChanged: filter.toolsListChanged === true }))}\n\n`);
    const entry = { res, id };
    listeners.add(entry);
    res.once('close', () => listeners.delete(entry));
  }

  function handle(req: http.IncomingMessage, res: http.ServerResponse, entry: SeenRequest, text: string): void {
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return send(res, 400, refuse(null, { code: -32700, message: 'Parse error' }));
    }
    entry.body = body;
    const { id, method } = body;
    const params = (body['params'] ?? {}) as Record<string, unknown>;
    if (method === 'initialize') {
      const requested = String(params['protocolVersion'] ?? '');
      return send(res, 400, refuse(id, { ...unsupportedProtocolVersionError(requested, [STATELESS_PROTOCOL_VERSION]), message: `Unsupported protocol version: this server speaks only ${STATELESS_PROTOCOL_VERSION}` }));
    }
    if (id === undefined) return void res.writeHead(202).end();
    const meta = parseRequestMeta(params);
    if (!meta.ok) return send(res, 400, refuse(id, meta.error));
    if (meta.meta.protocolVersion !== STATELESS_PROTOCOL_VERSION) return send(res, 400, refuse(id, unsupportedProtocolVersionError(meta.meta.protocolVersion, [STATELESS_PROTOCOL_VERSION])));
    const mismatch = checkRequestHeaders(req.headers, String(method), params, meta.meta.protocolVersion);
    if (mismatch) return send(res, 400, refuse(id, mismatch));
    const capabilities = meta.meta.clientCapabilities as Record<string, unknown>;
    const cache = { ttlMs: 60_000, cacheScope: 'public' as const };
    switch (method) {
      case 'server/discover':
        return send(res, 200, reply(id, discoverResult({ supportedVersions: [STATELESS_PROTOCOL_VERSION], capabilities: { tools: { listChanged: true }, logging: {} }, serverInfo: SERVER_INFO, cache })));
      case 'tools/list':
        return send(res, 200, reply(id, completeResult('tools/list', { tools: tools() }, { serverInfo: SERVER_INFO, cache })));
      case 'tools/call': {
        const declared = paramHeadersOf(tools().find((t) => t.name === params['name'])?.inputSchema);
        const wrongParam = declared.ok ? checkParamHeaders(req.headers, declared.headers, params['arguments']) : null;
        if (wrongParam) return send(res, 400, refuse(id, wrongParam));
        if (params['name'] === 'count') return count(id, params, res, meta.meta);
        if (params['name'] === 'hold') {
          // Under this revision a client cancels by closing the stream; that is all the server sees.
          res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
          res.write(': holding\n\n');
          res.once('close', () => void (cancelled.count += 1));
          return;
        }
        const answer = callTool(id, params, capabilities);
        return send(res, answer.status, answer.body);
      }
      case 'subscriptions/listen':
        return listen(id, params, res);
      default:
        return send(res, 404, refuse(id, { code: -32601, message: `Method not found: ${String(method)}` }));
    }
  }

  const server = http.createServer((req, res) => {
    const entry: SeenRequest = { httpMethod: req.method ?? '', headers: req.headers };
    seen.push(entry);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => handle(req, res, entry, Buffer.concat(chunks).toString('utf8')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/mcp`,
    seen,
    cancelledCalls: () => cancelled.count,
    changeBalanceDescription(description: string) {
      balanceDescription = description;
      for (const { res, id } of listeners) {
        const notification = { jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: { [MCP_META_KEY.subscriptionId]: id } } };
        res.write(`event: message\ndata: ${JSON.stringify(notification)}\n\n`);
      }
    },
    dropListenStreams() {
      for (const { res } of listeners) res.destroy();
    },
    async close() {
      for (const { res } of listeners) res.end();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
