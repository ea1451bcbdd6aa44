import { invalidRequestError, toErrorResponse } from './json-rpc-message.builder';
import { classifyMessage } from './json-rpc-message.classifier';
import { isJsonObject } from './json-rpc-id.guard';
import { JSON_RPC_ERROR, type JsonRpcErrorObject, type JsonRpcErrorResponse, type JsonRpcId, type JsonRpcNotification, type JsonRpcRequest } from './json-rpc.types';
import { isSupportedProtocolVersion, SUPPORTED_PROTOCOL_VERSIONS } from './protocol-version.negotiator';
import { declaresRequestVersion, parseRequestMeta } from './request-meta.parser';
import { checkRequestHeaders, MCP_HEADER, readHeader, type HttpHeaders } from './request-headers.validator';
import { headerMismatchError, httpStatusForStatelessError, sessionRevisionWithoutSessionError, unsupportedProtocolVersionError } from './revision-error.table';
import { quoteForMessage, truncateForMessage } from './json-value.describer';
import { MCP_META_KEY, STATELESS_PROTOCOL_VERSION, type RequestMeta } from './stateless-revision.types';

/** Every version the edge answers, stateless first; an -32022 lists these so a client can pick one. */
export const ALL_PROTOCOL_VERSIONS: readonly string[] = [STATELESS_PROTOCOL_VERSION, ...SUPPORTED_PROTOCOL_VERSIONS];

/** Client requests of the stateless revision. `initialize`, `ping`, `logging/setLevel` and `resources/(un)subscribe` are gone. */
export const STATELESS_CLIENT_METHODS = [
  'server/discover',
  'tools/list',
  'tools/call',
  'prompts/list',
  'prompts/get',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'subscriptions/listen',
  'completion/complete',
] as const;

export type StatelessClientMethod = (typeof STATELESS_CLIENT_METHODS)[number];

/** What the edge knows about one HTTP request before any MCP handling. `body` is the parsed JSON of a POST. */
export interface HttpRequestFacts {
  readonly httpMethod: string;
  readonly headers: HttpHeaders;
  readonly body?: unknown;
}

export type EraDecision =
  /** A self-contained request of the stateless revision; answer it without any session. */
  | { readonly era: 'stateless'; readonly kind: 'request'; readonly request: JsonRpcRequest & { readonly method: StatelessClientMethod }; readonly meta: RequestMeta }
  /** A notification POSTed the stateless way: accept it with 202 and nothing else. */
  | { readonly era: 'stateless'; readonly kind: 'notification'; readonly notification: JsonRpcNotification }
  /** Not stateless traffic: the session-based path handles it exactly as before. */
  | { readonly era: 'session' }
  /** Refuse with this HTTP status and `reply` as the body; `allow` is the Allow header of a 405. */
  | { readonly era: 'refused'; readonly httpStatus: number; readonly reply: JsonRpcErrorResponse; readonly allow?: string };

/**
 * Decides, per HTTP request, which revision's rules apply. A POST is stateless when its body
 * declares a version in `_meta` or its MCP-Protocol-Version header names the stateless revision;
 * an `initialize` always opens a session, and a POST with an Mcp-Session-Id header belongs to its
 * session unless it declares the stateless revision itself. GET and DELETE only exist for
 * sessions, so a client announcing the stateless revision on them gets 405. Everything else stays
 * on the session path, which keeps the older revisions' behaviour untouched.
 */
export function negotiateRequestEra(facts: HttpRequestFacts): EraDecision {
  const header = readHeader(facts.headers, MCP_HEADER.protocolVersion);
  const headerIsStateless = 'value' in header && header.value === STATELESS_PROTOCOL_VERSION;
  const method = facts.httpMethod.toUpperCase();
  if (method === 'GET' || method === 'DELETE') {
    if (!headerIsStateless) return { era: 'session' };
    const reason = `${method} is not part of ${STATELESS_PROTOCOL_VERSION}: send every request as a POST, and use subscriptions/listen for notifications`;
    return { era: 'refused', httpStatus: 405, allow: 'POST', reply: toErrorResponse(null, { code: JSON_RPC_ERROR.InvalidRequest, message: `Method Not Allowed: ${reason}` }) };
  }
  if (method !== 'POST') return { era: 'session' };
  const { body } = facts;
  if (Array.isArray(body)) {
    return headerIsStateless ? refuse(null, invalidRequestError(`${STATELESS_PROTOCOL_VERSION} takes one JSON-RPC message per POST, not a batch`)) : { era: 'session' };
  }
  if (isJsonObject(body) && body['method'] === 'initialize') return { era: 'session' };
  const params = isJsonObject(body) ? body['params'] : undefined;
  if (!headerIsStateless && !declaresRequestVersion(params)) return { era: 'session' };
  // Session revisions carry no version in `_meta`: inside a session that key is one more `_meta`
  // key, not a claim to be sessionless (only the stateless revision's own can be that).
  if (!headerIsStateless && 'value' in readHeader(facts.headers, MCP_HEADER.sessionId) && !declaresStatelessRevision(params)) return { era: 'session' };
  return decideStateless(facts.headers, body);
}

function declaresStatelessRevision(params: unknown): boolean {
  return isJsonObject(params) && isJsonObject(params['_meta']) && params['_meta'][MCP_META_KEY.protocolVersion] === STATELESS_PROTOCOL_VERSION;
}

/**
 * The same decision for one stdio message, where there are no headers to check: a message whose
 * params declare a version in `_meta` is stateless (a dual-era client probes with server/discover
 * first), anything else, `initialize` included, belongs to the session the stdio process holds.
 * Once that session is initialized (`inSession`), only a declaration of the stateless revision
 * takes a message out of it, as an Mcp-Session-Id header keeps an HTTP request in its session.
 */
export function negotiateMessageEra(body: unknown, inSession = false): EraDecision {
  if (!isJsonObject(body) || body['method'] === 'initialize' || !declaresRequestVersion(body['params'])) return { era: 'session' };
  if (inSession && !declaresStatelessRevision(body['params'])) return { era: 'session' };
  return decideStateless(undefined, body);
}

function decideStateless(headers: HttpHeaders | undefined, body: unknown): EraDecision {
  const classified = classifyMessage(body);
  switch (classified.kind) {
    case 'batch':
      return refuse(null, invalidRequestError(`${STATELESS_PROTOCOL_VERSION} takes one JSON-RPC message per POST, not a batch`));
    case 'invalid':
      // A response's id numbers one of our requests; echoing it would seem to answer that one.
      return refuse(classified.shape === 'response' ? null : classified.id, classified.error);
    case 'response':
      return refuse(null, invalidRequestError(`clients do not send responses in ${STATELESS_PROTOCOL_VERSION}; answer input requests by retrying with inputResponses`));
    case 'notification':
      return { era: 'stateless', kind: 'notification', notification: classified.message };
    case 'request':
      return decideRequest(headers, classified.message);
  }
}

/** `headers` undefined: stdio, where nothing is mirrored and only the body counts. */
function decideRequest(headers: HttpHeaders | undefined, request: JsonRpcRequest): EraDecision {
  const parsed = parseRequestMeta(request.params);
  if (!parsed.ok) return refuse(request.id, parsed.error);
  const { meta } = parsed;
  // A version header that disagrees with the body is a mismatch before it is anything else:
  // which of the two versions would we even judge?
  const versionHeader = headers === undefined ? ({ present: false } as const) : readHeader(headers, MCP_HEADER.protocolVersion);
  if ('value' in versionHeader && versionHeader.value !== meta.protocolVersion) {
    return refuse(request.id, headerMismatchError(`${MCP_HEADER.protocolVersion} header value ${quoteForMessage(versionHeader.value)} does not match body value ${quoteForMessage(meta.protocolVersion)}`));
  }
  if (isSupportedProtocolVersion(meta.protocolVersion)) {
    return refuse(request.id, sessionRevisionWithoutSessionError(meta.protocolVersion, [STATELESS_PROTOCOL_VERSION]));
  }
  if (meta.protocolVersion !== STATELESS_PROTOCOL_VERSION) {
    return refuse(request.id, unsupportedProtocolVersionError(meta.protocolVersion, ALL_PROTOCOL_VERSIONS));
  }
  const headerProblem = headers === undefined ? null : checkRequestHeaders(headers, request.method, request.params, meta.protocolVersion);
  if (headerProblem !== null) return refuse(request.id, headerProblem);
  if (!isStatelessClientMethod(request.method)) {
    return refuse(request.id, { code: JSON_RPC_ERROR.MethodNotFound, message: `Method not found: ${quoteForMessage(truncateForMessage(request.method))}` });
  }
  return { era: 'stateless', kind: 'request', request: request as JsonRpcRequest & { method: StatelessClientMethod }, meta };
}

export function isStatelessClientMethod(method: string): method is StatelessClientMethod {
  return STATELESS_CLIENT_METHODS.some((known) => known === method);
}

function refuse(id: JsonRpcId | null, error: JsonRpcErrorObject): EraDecision {
  return { era: 'refused', httpStatus: httpStatusForStatelessError(error.code), reply: toErrorResponse(id, error) };
}
