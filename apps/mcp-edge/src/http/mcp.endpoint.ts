import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Principal } from '@estate/contracts';
import type { PrincipalResolver, Logger } from '@estate/platform';
import {
  classifyMessage, inspectIncoming, isSupportedProtocolVersion, negotiateProtocolVersion, parseJson,
  type JsonRpcErrorObject, type JsonRpcId,
} from '@estate/protocol';
import type { SessionManager } from '../sessions/session.manager';
import type { EdgeSession } from '../sessions/edge-session';
import { readBody } from './body.reader';
import { type RequestGuard } from './request.guard';

export interface McpEndpointDeps {
  sessions: SessionManager;
  resolver: PrincipalResolver;
  guard: RequestGuard;
  maxBodyBytes: number;
  logger: Logger;
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function rpcError(res: ServerResponse, status: number, id: JsonRpcId | null, error: JsonRpcErrorObject): void {
  sendJson(res, status, { jsonrpc: '2.0', id, error });
}

const SESSION_NOT_FOUND: JsonRpcErrorObject = { code: -32001, message: 'Session not found' };

/**
 * The Streamable HTTP endpoint. It adds the estate's checks around the SDK transport: Origin and
 * Host, the bearer principal, the session's owner, the protocol version header, and the seeds'
 * lifecycle and id rules, which the SDK does not enforce.
 */
export function createMcpEndpoint(deps: McpEndpointDeps) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    try {
      if (!deps.guard.check(req, res)) return;
      const auth = await deps.resolver.resolve(req.headers.authorization);
      if (!auth.ok) return deps.guard.challenge(res, auth.reason);
      const version = req.headers['mcp-protocol-version'];
      if (typeof version === 'string' && !isSupportedProtocolVersion(version)) {
        return rpcError(res, 400, null, { code: -32600, message: `Bad Request: unsupported MCP-Protocol-Version ${version}` });
      }
      const sessionId = req.headers['mcp-session-id'];
      if (req.method === 'POST') return await post(deps, req, res, auth.principal, typeof sessionId === 'string' ? sessionId : undefined);
      if (req.method === 'GET' || req.method === 'DELETE') {
        const session = typeof sessionId === 'string' ? deps.sessions.find(sessionId, auth.principal) : undefined;
        if (!session) return rpcError(res, typeof sessionId === 'string' ? 404 : 400, null, typeof sessionId === 'string' ? SESSION_NOT_FOUND : { code: -32600, message: 'Bad Request: Mcp-Session-Id header is required' });
        if (req.method === 'GET') trackStream(session, res);
        return await session.http!.handleRequest(req, res);
      }
      res.writeHead(405, { allow: 'GET, POST, DELETE' }).end();
    } catch (error) {
      deps.logger.error({ err: error }, 'mcp endpoint failure');
      if (!res.headersSent) rpcError(res, 500, null, { code: -32603, message: 'Internal error' });
      else res.end();
    }
  };
}

function trackStream(session: EdgeSession, res: ServerResponse): void {
  session.openStreams += 1;
  res.once('close', () => {
    session.openStreams -= 1;
  });
}

async function post(deps: McpEndpointDeps, req: IncomingMessage, res: ServerResponse, principal: Principal, sessionId: string | undefined): Promise<void> {
  const body = await readBody(req, deps.maxBodyBytes);
  if (!body.ok) return rpcError(res, body.status, null, { code: body.status === 413 ? -32600 : -32700, message: body.message });
  const parsed = parseJson(body.text);
  if (!parsed.ok) return rpcError(res, 400, null, parsed.error);
  if (sessionId === undefined) return initialize(deps, req, res, principal, parsed.value);
  const session = deps.sessions.find(sessionId, principal);
  if (!session) return rpcError(res, 404, null, SESSION_NOT_FOUND);
  const verdict = inspectIncoming(session.lifecycle, parsed.value);
  switch (verdict.action) {
    case 'reply':
      return sendJson(res, 400, verdict.reply);
    case 'drop':
      res.writeHead(202).end();
      return;
    case 'batch': {
      const refused = verdict.entries.filter((i) => i.action === 'reply');
      if (refused.length > 0) return sendJson(res, 400, refused.map((i) => (i.action === 'reply' ? i.reply : null)));
      const accepted = verdict.entries.flatMap((i) => (i.action === 'process' ? [i.message] : []));
      if (accepted.length === 0) {
        res.writeHead(202).end();
        return;
      }
      return session.http!.handleRequest(req, res, accepted);
    }
    case 'process':
      return session.http!.handleRequest(req, res, verdict.message);
  }
}

async function initialize(deps: McpEndpointDeps, req: IncomingMessage, res: ServerResponse, principal: Principal, value: unknown): Promise<void> {
  const message = classifyMessage(value);
  if (message.kind !== 'request' || message.message.method !== 'initialize') {
    const id = message.kind === 'request' ? message.message.id : message.kind === 'invalid' ? message.id : null;
    return rpcError(res, 400, id, {
      code: -32600,
      message: message.kind === 'invalid' ? message.error.message : 'Invalid Request: no session; send initialize first (without an Mcp-Session-Id header)',
    });
  }
  const params = message.message.params as Record<string, unknown> | undefined;
  const session = deps.sessions.open(principal, params);
  const verdict = inspectIncoming(session.lifecycle, value);
  if (verdict.action !== 'process') {
    await deps.sessions.remove(session.id);
    return sendJson(res, 400, verdict.action === 'reply' ? verdict.reply : { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request' } });
  }
  const negotiated = negotiateProtocolVersion(params?.protocolVersion);
  session.protocolVersion = negotiated;
  session.lifecycle.onInitializeAnswered(negotiated);
  await session.http!.handleRequest(req, res, verdict.message);
}
