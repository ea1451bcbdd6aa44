import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PrincipalResolver, Logger, TokenExpiryOf } from '@estate/platform';
import {
  checkBatchAllowed, classifyMessage, LATEST_PROTOCOL_VERSION, inspectIncoming, isSupportedProtocolVersion, negotiateRequestEra, parseJson,
  STATELESS_PROTOCOL_VERSION, type EraDecision, type IncomingDecision, type JsonRpcId, type JsonRpcResponse, type JsonRpcRequest, type MessageDecision,
} from '@estate/protocol';
import type { SessionManager } from '../sessions/session.manager';
import { EdgeSession } from '../sessions/edge-session';
import { checkRequestParams } from '../sessions/request-params.check';
import { rightsAuthInfo, type RequestRights } from '../sessions/request-rights';
import { readBody } from './body.reader';
import { type RequestGuard } from './request.guard';
import { rpcError, sendJson, SESSION_NOT_FOUND } from './json-rpc.reply';
import { serveStateless, type StatelessEndpointDeps } from './stateless.endpoint';


export interface McpEndpointDeps {
  sessions: SessionManager;
  resolver: PrincipalResolver;
  guard: RequestGuard;
  maxBodyBytes: number;
  logger: Logger;
  /** The 2026-07-28 revision (no sessions); without it every request takes the session path. */
  stateless?: StatelessEndpointDeps;
  /** When a request's token expires; without it (authentication off) rights never lapse. */
  expiryOf?: TokenExpiryOf;
}

/*
 * HTTP statuses for JSON-RPC refusals, following the 2025-11-25 Streamable HTTP transport: a POSTed
 * request the server does not accept gets an HTTP error status, and the body is a JSON-RPC error
 * (with the request's id when it has a usable one, else null).
 *   400  unparseable JSON or non-UTF-8 bytes (-32700); a request before initialize or before
 *        notifications/initialized, a float/null/boolean id, a reused id, a second initialize, a
 *        batch where the negotiated version has none, no Mcp-Session-Id on a non-initialize
 *        message, an unsupported MCP-Protocol-Version header (-32600); bad initialize params (-32602).
 *   401  no or bad bearer token; 403  unlisted Origin or Host; 404  unknown, expired, deleted or
 *        someone else's session (one body for all); 405  other HTTP methods; 406  an Accept header
 *        without the media types the transport answers with; 413  body over ESTATE_MAX_BODY_BYTES;
 *        415  a Content-Type other than application/json; 429  an initialize from a principal that
 *        already holds ESTATE_MAX_SESSIONS_PER_PRINCIPAL sessions (-32000, with Retry-After).
 * Every request is authorized with its own token: the session must belong to the token's subject
 * and tenant, and the token's rights (not the opening token's) go with each message to its handler.
 * A GET stream or subscriptions/listen stream ends when the token that opened it expires.
 *   202  (no body) any accepted or dropped notification or response: a notification is never
 *        answered, even a malformed or untimely one, so the sender learns nothing from it.
 */

/**
 * The Streamable HTTP endpoint. It makes the estate's checks before a session's transport
 * (streamable-http.transport.ts) sees a request: Origin and Host, the bearer principal, the
 * session's owner, the protocol version header, and the seeds' lifecycle and id rules, which the
 * SDK does not enforce.
 */
/**
 * A CORS preflight from a listed origin (the guard refused any other): no credentials, no body.
 * 2026-07-28 requests mirror tool arguments into `Mcp-Param-*` headers whose names only the tool
 * knows, so requested headers of that family are allowed by name as well.
 */
function answerPreflight(req: IncomingMessage, res: ServerResponse): void {
  const requested = String(req.headers['access-control-request-headers'] ?? '').split(',').map((h) => h.trim()).filter((h) => /^mcp-param-[!#$%&'*+\-.^_`|~0-9a-z]+$/i.test(h));
  res.writeHead(204, {
    'Access-Control-Allow-Methods': 'GET, POST, DELETE',
    'Access-Control-Allow-Headers': ['Authorization, Content-Type, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID, Mcp-Method, Mcp-Name', ...requested].join(', '),
    'Access-Control-Max-Age': '600',
  }).end();
}

export function createMcpEndpoint(deps: McpEndpointDeps) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    try {
      if (!deps.guard.check(req, res)) return;
      if (req.method === 'OPTIONS' && req.headers.origin !== undefined && req.headers['access-control-request-method'] !== undefined) return answerPreflight(req, res);
      const auth = await deps.resolver.resolve(req.headers.authorization);
      if (!auth.ok) return deps.guard.challenge(res, auth.reason);
      const rights: RequestRights = { principal: auth.principal, until: deps.expiryOf?.(auth.principal, req.headers.authorization) };
      const version = req.headers['mcp-protocol-version'];
      const statelessHeader = deps.stateless !== undefined && version === STATELESS_PROTOCOL_VERSION;
      // A POST under a version we do not speak may be a stateless request of another revision (its
      // answer is -32022 listing ours, with its id): that needs the body, so it is judged after.
      const judgedLater = deps.stateless !== undefined && req.method === 'POST';
      // Any version we speak is accepted, not only the negotiated one: the conformance suite sends
      // 2025-03-26 on some raw requests of a 2025-11-25 session.
      if (version !== undefined && !statelessHeader && !judgedLater && !isSupportedProtocolVersion(version)) return unsupportedVersion(res, version);
      const sessionId = singleHeader(req.headers['mcp-session-id']);
      if (req.method === 'POST') return await post(deps, req, res, rights, sessionId);
      if (req.method === 'GET' || req.method === 'DELETE') {
        // The era is settled per request before anything of a session is looked at.
        const era = deps.stateless ? negotiateRequestEra({ httpMethod: req.method, headers: req.headers }) : { era: 'session' as const };
        if (era.era === 'refused') return refuse(res, era);
        if (statelessHeader) return unsupportedVersion(res, String(version));
        return await getOrDelete(deps, req, res, rights, sessionId);
      }
      res.setHeader('allow', 'GET, POST, DELETE');
      rpcError(res, 405, null, { code: -32600, message: `Method Not Allowed: ${req.method ?? ''} is not served here; use POST, GET or DELETE` });
    } catch (error) {
      deps.logger.error({ err: error }, 'mcp endpoint failure');
      if (!res.headersSent) rpcError(res, 500, null, { code: -32603, message: 'Internal error' });
      else res.end();
    }
  };
}

function isInitialize(value: unknown): boolean {
  return typeof value === 'object' && value !== null && (value as { method?: unknown }).method === 'initialize';
}

function requestIdOf(value: unknown): JsonRpcId | null {
  const message = classifyMessage(value);
  return message.kind === 'request' ? message.message.id : message.kind === 'invalid' ? message.id : null;
}

function unsupportedVersion(res: ServerResponse, version: string | string[]): void {
  rpcError(res, 400, null, { code: -32600, message: `Bad Request: unsupported MCP-Protocol-Version ${String(version).slice(0, 40)}` });
}

function refuse(res: ServerResponse, decision: Extract<EraDecision, { era: 'refused' }>): void {
  if (decision.allow !== undefined) res.setHeader('allow', decision.allow);
  sendJson(res, decision.httpStatus, decision.reply);
}

function singleHeader(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** The transport answers POSTs as JSON or SSE and GETs as SSE; a client that takes neither cannot be served. */
function acceptable(req: IncomingMessage, res: ServerResponse): boolean {
  const accept = req.headers.accept ?? '';
  const needed = req.method === 'GET' ? ['text/event-stream'] : ['application/json', 'text/event-stream'];
  if (needed.every((type) => accept.includes(type))) return true;
  rpcError(res, 406, null, { code: -32600, message: `Not Acceptable: the Accept header must list ${needed.join(' and ')}` });
  return false;
}

async function getOrDelete(deps: McpEndpointDeps, req: IncomingMessage, res: ServerResponse, rights: RequestRights, sessionId: string | undefined): Promise<void> {
  if (sessionId === undefined) return rpcError(res, 400, null, { code: -32600, message: 'Bad Request: Mcp-Session-Id header is required' });
  const session = deps.sessions.find(sessionId, rights.principal, rights.until);
  if (!session) return rpcError(res, 404, null, SESSION_NOT_FOUND);
  if (req.method === 'GET') {
    if (!acceptable(req, res)) return;
    trackStream(session, res);
  }
  // The GET's rights go along so that the stream it opens ends when its token expires.
  await session.http!.handleRequest(req, res, undefined, rightsAuthInfo(rights));
}

function trackStream(session: EdgeSession, res: ServerResponse): void {
  session.openStreams += 1;
  res.once('close', () => {
    session.openStreams -= 1;
  });
}

async function post(deps: McpEndpointDeps, req: IncomingMessage, res: ServerResponse, rights: RequestRights, sessionId: string | undefined): Promise<void> {
  const body = await readBody(req, deps.maxBodyBytes);
  if (!body.ok) {
    // The rest of an oversized body is not worth reading: close the connection after answering.
    if (body.status === 413) res.setHeader('connection', 'close');
    return rpcError(res, body.status, null, { code: body.code, message: body.message });
  }
  const parsed = parseJson(body.text);
  if (!parsed.ok) return rpcError(res, 400, null, parsed.error);
  if (deps.stateless) {
    const era = negotiateRequestEra({ httpMethod: 'POST', headers: req.headers, body: parsed.value });
    if (era.era === 'refused') return refuse(res, era);
    if (era.era === 'stateless') return serveStateless(deps.stateless, req, res, rights, era);
    // A session-era message under a version header no session speaks: refused as before, except
    // that initialize under the stateless version is a method that revision removed (404, -32601).
    const version = req.headers['mcp-protocol-version'];
    if (version === STATELESS_PROTOCOL_VERSION && isInitialize(parsed.value)) {
      return rpcError(res, 404, requestIdOf(parsed.value), { code: -32601, message: `Method not found: initialize is not part of ${STATELESS_PROTOCOL_VERSION}; use server/discover` });
    }
    if (version !== undefined && !isSupportedProtocolVersion(version)) return unsupportedVersion(res, version);
  }
  if (sessionId === undefined) return initialize(deps, req, res, rights, parsed.value);
  const session = deps.sessions.find(sessionId, rights.principal, rights.until);
  if (!session) return rpcError(res, 404, null, SESSION_NOT_FOUND);
  // HTTP before JSON-RPC: a POST refused for its Accept header leaves the session as it was.
  if (!acceptable(req, res)) return;
  return dispatch(deps.sessions, session, req, res, inspectIncoming(session.lifecycle, parsed.value), rights);
}

async function dispatch(sessions: SessionManager, session: EdgeSession, req: IncomingMessage, res: ServerResponse, verdict: IncomingDecision, rights: RequestRights): Promise<void> {
  switch (verdict.action) {
    case 'reply':
      return sendJson(res, 400, verdict.reply);
    case 'drop':
      res.writeHead(202).end();
      return;
    case 'batch': {
      // A batch with any refused entry is refused whole: half-processing it would leave the
      // client unable to tell which entries ran. None ran, so none of its ids is used up.
      const refused = verdict.entries.flatMap((entry) => {
        const reply = refusalOf(sessions, session, entry, rights);
        return reply ? [reply] : [];
      });
      if (refused.length > 0) {
        withdraw(session, verdict.entries);
        return sendJson(res, 400, refused);
      }
      const accepted = verdict.entries.flatMap((entry) => (entry.action === 'process' ? [entry.message] : []));
      if (accepted.length === 0) {
        res.writeHead(202).end();
        return;
      }
      return deliver(session, req, res, accepted, verdict.entries, rights);
    }
    case 'process': {
      // A request whose params do not fit its method was still read: its -32602 is its answer
      // (200, as any JSON-RPC error), so a client sees an McpError, not a failed transport.
      const refusal = refusalOf(sessions, session, verdict, rights);
      if (refusal) return sendJson(res, 200, refusal);
      return deliver(session, req, res, verdict.message, [verdict], rights);
    }
  }
}

/** Hands admitted messages to the session's transport; if it refuses the POST outright, their ids stay unused. */
async function deliver(session: EdgeSession, req: IncomingMessage, res: ServerResponse, body: unknown, entries: readonly MessageDecision[], rights: RequestRights): Promise<void> {
  if (!(await session.http!.handleRequest(req, res, body, rightsAuthInfo(rights)))) withdraw(session, entries);
}

/** The requests of a POST the edge refused after admitting them never ran: their ids are free again. */
function withdraw(session: EdgeSession, entries: readonly MessageDecision[]): void {
  for (const entry of entries) {
    if (entry.action === 'process' && entry.kind === 'request') session.lifecycle.withdrawRequest(entry.message.id);
  }
}

/**
 * The answer for a message the inspector refused, or whose params do not fit its method (a
 * tools/call so refused is recorded; over its principal's budget, it is answered as rate-limited).
 */
function refusalOf(sessions: SessionManager, session: EdgeSession, decision: MessageDecision, rights: RequestRights): JsonRpcResponse | null {
  if (decision.action === 'reply') return decision.reply;
  if (decision.action !== 'process' || decision.kind !== 'request') return null;
  return sessions.answerUnfit(session, decision.message, rightsAuthInfo(rights));
}

async function initialize(deps: McpEndpointDeps, req: IncomingMessage, res: ServerResponse, rights: RequestRights, value: unknown): Promise<void> {
  const message = classifyMessage(value);
  if (message.kind !== 'request' || message.message.method !== 'initialize') {
    const id = message.kind === 'request' ? message.message.id : message.kind === 'invalid' ? message.id : null;
    return rpcError(res, 400, id, {
      code: -32600,
      message: sessionlessRefusal(message),
    });
  }
  // Any protocolVersion value is an offer we answer with a version of ours, never a refusal.
  const invalid = checkRequestParams({ ...message.message, params: { ...message.message.params, protocolVersion: LATEST_PROTOCOL_VERSION } });
  if (invalid) return rpcError(res, 400, message.message.id, invalid);
  if (!acceptable(req, res)) return;
  const session = deps.sessions.open(rights.principal, message.message.params, rights.until);
  if (!(session instanceof EdgeSession)) {
    res.setHeader('retry-after', String(session.retryAfterSeconds));
    return rpcError(res, 429, message.message.id, {
      code: -32000,
      message: `Too many sessions: this principal already holds ${session.limit} open sessions; end one (HTTP DELETE) or retry after ${session.retryAfterSeconds} s`,
      data: { limit: session.limit, retryAfterSeconds: session.retryAfterSeconds },
    });
  }
  const verdict = inspectIncoming(session.lifecycle, value);
  if (verdict.action !== 'process' || verdict.kind !== 'request') {
    await deps.sessions.remove(session.id);
    return rpcError(res, 400, message.message.id, { code: -32600, message: 'Invalid Request' });
  }
  await session.http!.handleRequest(req, res, session.acceptInitialize(verdict.message as JsonRpcRequest), rightsAuthInfo(rights));
}

function sessionlessRefusal(message: ReturnType<typeof classifyMessage>): string {
  if (message.kind === 'invalid') return message.error.message;
  if (message.kind === 'batch') return checkBatchAllowed(undefined)?.message ?? 'Invalid Request';
  return 'Invalid Request: no session; send initialize first (without an Mcp-Session-Id header)';
}
