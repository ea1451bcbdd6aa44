/**
 * The MCP revision without sessions (2026-07-28) as this library models it. A request of this
 * revision is self-contained: its version and the client's capabilities travel in `_meta` on
 * every request, so any edge copy can answer it. Only the members the gateway reads are typed
 * here; everything else is passed on as it came.
 */

/** The one stateless revision this library knows. Older, session-based ones live in protocol-version.negotiator.ts. */
export const STATELESS_PROTOCOL_VERSION = '2026-07-28' as const;

export type StatelessProtocolVersion = typeof STATELESS_PROTOCOL_VERSION;

/** Reserved `_meta` keys of the revision, named once so no caller misspells one. */
export const MCP_META_KEY = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
  progressToken: 'progressToken',
} as const;

/** Log levels a request may ask for in `_meta` (syslog order, least severe first). */
export const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;

export type LogLevel = (typeof LOG_LEVELS)[number];

export type JsonObject = Readonly<Record<string, unknown>>;

/** What a client says it can do, for this one request. Unknown members are kept, not refused. */
export interface ClientCapabilities {
  readonly experimental?: Readonly<Record<string, JsonObject>>;
  readonly roots?: JsonObject;
  readonly sampling?: { readonly context?: JsonObject; readonly tools?: JsonObject };
  readonly elicitation?: { readonly form?: JsonObject; readonly url?: JsonObject };
  readonly extensions?: Readonly<Record<string, JsonObject>>;
  readonly [other: string]: unknown;
}

export interface ServerCapabilities {
  readonly experimental?: Readonly<Record<string, JsonObject>>;
  readonly logging?: JsonObject;
  readonly completions?: JsonObject;
  readonly prompts?: { readonly listChanged?: boolean };
  readonly resources?: { readonly subscribe?: boolean; readonly listChanged?: boolean };
  readonly tools?: { readonly listChanged?: boolean };
  readonly extensions?: Readonly<Record<string, JsonObject>>;
}

/** Name and version of a piece of software (client or server); self-reported, never trusted. */
export interface Implementation {
  readonly name: string;
  readonly version: string;
  readonly title?: string;
  readonly description?: string;
  readonly websiteUrl?: string;
  readonly [other: string]: unknown;
}

/** The per-request protocol fields, read from `params._meta` of a stateless request. */
export interface RequestMeta {
  readonly protocolVersion: string;
  readonly clientCapabilities: ClientCapabilities;
  readonly clientInfo?: Implementation;
  readonly logLevel?: LogLevel;
  readonly progressToken?: string | number;
}

/** Every result of the revision says whether it is final or asks the client for more. */
export type ResultType = 'complete' | 'input_required';

export type CacheScope = 'public' | 'private';
