import {
  INPUT_REQUEST_METHODS, MCP_HEADER, MCP_META_KEY, NAMED_METHODS, PARAM_HEADER_PREFIX, STATELESS_ERROR, STATELESS_PROTOCOL_VERSION, encodeHeaderValue,
  isJsonObject, paramHeadersOf, type ClientCapabilities, type Implementation, type InputRequests, type LogLevel, type ParamHeader,
} from '@estate/protocol';

/*
 * How the edge speaks to an upstream that offers the 2026-07-28 revision: every request carries
 * the version and the edge's capabilities in `_meta` and mirrors its method (and target) into
 * headers; `server/discover` stands in for the handshake. Pure functions; the transport that
 * uses them is stateless-client.transport.ts.
 */

/** What the edge says about itself and what it can do, on every stateless request. */
export interface StatelessContext {
  capabilities: ClientCapabilities;
  clientInfo: Implementation;
  /** The level the edge asked for with logging/setLevel; the revision carries it per request. */
  logLevel?: LogLevel;
}

export interface StatelessRequest {
  jsonrpc: '2.0';
  id: string | number;
  method: string;
  params?: Record<string, unknown>;
}

/** What `server/discover` told us, as far as the edge uses it. */
export interface DiscoveredServer {
  capabilities: Record<string, unknown>;
  serverInfo: Implementation;
  instructions?: string;
}

export type ProbeVerdict =
  | { era: 'stateless'; server: DiscoveredServer }
  /** Not a 2026 server (or not one that speaks our version): the initialize handshake follows. */
  | { era: 'session'; reason: string }
  /** A 2026 server that refused the probe with one of the revision's own errors: falling back cannot help. */
  | { era: 'refused'; reason: string };

const MODERN_ERROR_CODES: readonly number[] = Object.values(STATELESS_ERROR).map((entry) => entry.code);

/** The request with the revision's `_meta` members added; members the caller set (a progress token) are kept. */
export function statelessRequest(request: StatelessRequest, context: StatelessContext): StatelessRequest {
  const params = request.params ?? {};
  const meta = isJsonObject(params['_meta']) ? params['_meta'] : {};
  return {
    ...request,
    params: {
      ...params,
      _meta: {
        ...meta,
        [MCP_META_KEY.protocolVersion]: STATELESS_PROTOCOL_VERSION,
        [MCP_META_KEY.clientCapabilities]: context.capabilities,
        [MCP_META_KEY.clientInfo]: context.clientInfo,
        ...(context.logLevel === undefined ? {} : { [MCP_META_KEY.logLevel]: context.logLevel }),
      },
    },
  };
}

/** The headers a stateless POST mirrors from its body (the version, the method, the named target). */
export function statelessHeaders(message: unknown): Record<string, string> {
  if (!isJsonObject(message) || typeof message['method'] !== 'string') return {};
  const method = message['method'];
  const headers: Record<string, string> = { [MCP_HEADER.protocolVersion]: STATELESS_PROTOCOL_VERSION, [MCP_HEADER.method]: method };
  const source = NAMED_METHODS[method];
  const params = message['params'];
  const target = source !== undefined && isJsonObject(params) ? params[source] : undefined;
  if (typeof target === 'string') headers[MCP_HEADER.name] = encodeHeaderValue(target);
  return headers;
}

/**
 * The `Mcp-Param-*` headers a tools/call mirrors from its arguments, as the tool's inputSchema
 * declares them (`x-mcp-header`); an absent or null argument sends no header.
 */
export function paramHeaders(declared: readonly ParamHeader[], args: unknown): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const param of declared) {
    let value: unknown = args;
    for (const key of param.path) value = isJsonObject(value) ? value[key] : undefined;
    if (value === undefined || value === null) continue;
    headers[`${PARAM_HEADER_PREFIX}${param.name}`] = typeof value === 'string' ? encodeHeaderValue(value) : String(value);
  }
  return headers;
}

/** The mirrored headers of each listed tool that declares any; tools with an invalid declaration are left out. */
export function declaredParamHeaders(result: Record<string, unknown>): Map<string, readonly ParamHeader[]> {
  const declared = new Map<string, readonly ParamHeader[]>();
  for (const tool of Array.isArray(result['tools']) ? result['tools'] : []) {
    if (!isJsonObject(tool) || typeof tool['name'] !== 'string') continue;
    const found = paramHeadersOf(tool['inputSchema']);
    if (found.ok && found.headers.length > 0) declared.set(tool['name'], found.headers);
  }
  return declared;
}

export function discoverRequest(id: string, context: StatelessContext): StatelessRequest {
  return statelessRequest({ jsonrpc: '2.0', id, method: 'server/discover', params: {} }, context);
}

/** Judges the JSON-RPC answer to the probe. Only a DiscoverResult that lists our version makes the upstream stateless. */
export function judgeDiscoverAnswer(message: unknown): ProbeVerdict {
  if (!isJsonObject(message)) return { era: 'session', reason: 'the answer to server/discover was not a JSON-RPC message' };
  if (isJsonObject(message['error'])) return judgeError(message['error'], 200);
  const result = message['result'];
  if (!isJsonObject(result)) return { era: 'session', reason: 'the answer to server/discover carried no result' };
  const versions = Array.isArray(result['supportedVersions']) ? result['supportedVersions'] : [];
  if (!versions.includes(STATELESS_PROTOCOL_VERSION)) return { era: 'session', reason: `server/discover does not list ${STATELESS_PROTOCOL_VERSION}` };
  const meta = isJsonObject(result['_meta']) ? result['_meta'] : {};
  const info = meta[MCP_META_KEY.serverInfo];
  const serverInfo = isJsonObject(info) && typeof info['name'] === 'string' && typeof info['version'] === 'string'
    ? (info as Implementation)
    : { name: 'unnamed-upstream', version: 'unknown' };
  return {
    era: 'stateless',
    server: {
      capabilities: isJsonObject(result['capabilities']) ? { ...result['capabilities'] } : {},
      serverInfo,
      ...(typeof result['instructions'] === 'string' ? { instructions: result['instructions'] } : {}),
    },
  };
}

/**
 * Judges an HTTP refusal of the probe (4xx). The revision's own errors (-32020..-32022) mean a
 * modern server, which the handshake would not reach either; an empty or foreign body (a
 * session-based server wanting its session id, say) means an older one: the handshake follows.
 */
export function judgeDiscoverRefusal(status: number, body: string | undefined): ProbeVerdict {
  let parsed: unknown;
  try {
    parsed = body ? JSON.parse(body) : undefined;
  } catch {
    parsed = undefined;
  }
  const error = isJsonObject(parsed) && isJsonObject(parsed['error']) ? parsed['error'] : undefined;
  if (error) return judgeError(error, status);
  return { era: 'session', reason: `server/discover was refused with HTTP ${status}` };
}

function judgeError(error: Record<string, unknown>, status: number): ProbeVerdict {
  const code = typeof error['code'] === 'number' ? error['code'] : NaN;
  const message = typeof error['message'] === 'string' ? error['message'] : '';
  if (MODERN_ERROR_CODES.includes(code)) return { era: 'refused', reason: `the upstream refused server/discover with ${code} (${message.slice(0, 200)})` };
  return { era: 'session', reason: `server/discover answered ${code} with HTTP ${status}` };
}

/**
 * The answer the SDK client gets to its `initialize`, made from the discovery: the version it
 * asked for (it only knows session revisions; the wire speaks 2026-07-28 regardless) and the
 * upstream's capabilities, minus resource subscriptions, which this revision moved into
 * subscriptions/listen and the edge does not relay from a 2026 upstream.
 */
export function initializeResultFrom(server: DiscoveredServer, requestedVersion: string): Record<string, unknown> {
  const capabilities = { ...server.capabilities };
  if (isJsonObject(capabilities['resources'])) {
    const { subscribe: _dropped, ...resources } = capabilities['resources'];
    capabilities['resources'] = resources;
  }
  return {
    protocolVersion: requestedVersion,
    capabilities,
    serverInfo: server.serverInfo,
    ...(server.instructions === undefined ? {} : { instructions: server.instructions }),
  };
}

/** The list-change notifications worth a subscriptions/listen stream, from what the upstream declared; undefined when none. */
export function listenFilter(capabilities: Record<string, unknown>): Record<string, boolean> | undefined {
  const filter: Record<string, boolean> = {};
  const flags = [['tools', 'toolsListChanged'], ['prompts', 'promptsListChanged'], ['resources', 'resourcesListChanged']] as const;
  for (const [capability, flag] of flags) {
    const declared = capabilities[capability];
    if (isJsonObject(declared) && declared['listChanged'] === true) filter[flag] = true;
  }
  return Object.keys(filter).length === 0 ? undefined : filter;
}

export type InputRequiredAnswer = { ok: true; inputRequests: InputRequests; requestState?: string } | { ok: false; reason: string };

/** The input requests and state of an input_required result, checked: the upstream is untrusted. */
export function readInputRequired(result: Record<string, unknown>): InputRequiredAnswer {
  const requests = result['inputRequests'] ?? {};
  const state = result['requestState'];
  if (!isJsonObject(requests)) return { ok: false, reason: 'inputRequests must be an object' };
  if (state !== undefined && typeof state !== 'string') return { ok: false, reason: 'requestState must be a string' };
  if (Object.keys(requests).length === 0 && state === undefined) return { ok: false, reason: 'an input_required result must carry inputRequests or requestState' };
  for (const [key, request] of Object.entries(requests)) {
    const method = isJsonObject(request) ? request['method'] : undefined;
    if (!INPUT_REQUEST_METHODS.some((known) => known === method)) return { ok: false, reason: `inputRequests.${key}.method must be one of ${INPUT_REQUEST_METHODS.join(', ')}` };
    if (isJsonObject(request) && request['params'] !== undefined && !isJsonObject(request['params'])) return { ok: false, reason: `inputRequests.${key}.params must be an object` };
  }
  return { ok: true, inputRequests: requests as InputRequests, ...(state === undefined ? {} : { requestState: state }) };
}

/** The original request again, carrying the answers and the state the upstream handed out. */
export function retriedRequest(original: StatelessRequest, inputResponses: Record<string, unknown>, requestState: string | undefined): StatelessRequest {
  const { inputResponses: _old, requestState: _oldState, ...params } = original.params ?? {};
  return {
    ...original,
    params: {
      ...params,
      ...(Object.keys(inputResponses).length === 0 ? {} : { inputResponses }),
      ...(requestState === undefined ? {} : { requestState }),
    },
  };
}

/** A result of this revision as a session-era client expects it: the revision's own members removed. */
export function sessionEraResult(result: Record<string, unknown>): Record<string, unknown> {
  const { resultType: _type, ttlMs: _ttl, cacheScope: _scope, ...rest } = result;
  return rest;
}
