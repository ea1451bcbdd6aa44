import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, ErrorCode, McpError, ToolListChangedNotificationSchema, type CallToolResult, type Progress, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { CatalogUpstream } from '@estate/events';
import type { Logger } from '@estate/platform';
import { STATELESS_ERROR } from '@estate/protocol';
import type { FailureKind } from '../policy/retry.policy';
import { DEFAULT_READ_LIMITS, HttpClientTransport, UpstreamHttpError, type UpstreamReadLimits } from './http-client.transport';
import type { CallCancellation } from './call.cancellation';
import { callDirect } from './direct-call';
import { StatelessUpstreamTransport, type UpstreamEra } from './stateless-client.transport';
import { BoundedStdioTransport } from './stdio-client.transport';

/**
 * Why an upstream call did not produce a result; becomes an `isError` tool result, never a
 * protocol error. Its message is for the log and the audit trail only: it can carry the
 * upstream's own words (a traceback, an address), which never reach the model.
 */
export class UpstreamFailure extends Error {
  constructor(readonly kind: FailureKind, message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** Optional per-call extras; `onprogress` makes the SDK send the edge's own progress token upstream. */
export interface UpstreamCallOptions {
  onprogress?: (progress: Progress) => void;
  /** The downstream session: upstreams registered with session affinity get one upstream session each. */
  sessionId?: string;
}

/** Runs on every new upstream client before it connects: capabilities and handlers for what upstreams send back. */
export type UpstreamClientSetup = (client: Client, upstream: CatalogUpstream) => void;

/** Told what an upstream serves whenever a connection opens and whenever the upstream says its list changed. */
export type UpstreamToolsListener = (server: string, tools: Tool[]) => void;

interface Connection {
  client: Client;
  closed: boolean;
  relist?: NodeJS.Timeout;
  /** The HTTP transport of a session-era upstream, which takes calls around the SDK client (direct-call.ts). */
  direct?: HttpClientTransport;
}

/** Bounds on what the edge accepts from upstreams. */
export interface UpstreamPoolOptions {
  read: UpstreamReadLimits;
  /** How often an open connection's tools are listed again, to catch a change the upstream did not announce. */
  relistMs: number;
}

export const DEFAULT_POOL_OPTIONS: UpstreamPoolOptions = { read: DEFAULT_READ_LIMITS, relistMs: 60_000 };

const RECONNECT_BACKOFF_MS = [0, 100, 500, 2000, 5000];
const MAX_TOOL_PAGES = 50;
/**
 * Codes with which an upstream says the request itself was wrong: sending it again cannot help.
 * -32021 (2026-07-28): a client capability is missing, which is also how the edge fails a call
 * whose input request the estate refused or the agent could not answer.
 */
const REJECTION_CODES = new Set<number>([ErrorCode.InvalidRequest, ErrorCode.MethodNotFound, ErrorCode.InvalidParams, ErrorCode.ParseError, STATELESS_ERROR.MissingRequiredClientCapability.code]);

/** Maps whatever the SDK client threw to the failure kinds the retry policy and the model understand. */
export function classifyUpstreamError(error: unknown, timeoutMs: number): UpstreamFailure {
  if (error instanceof McpError) {
    if (error.code === ErrorCode.RequestTimeout) return new UpstreamFailure('timeout', `the upstream did not answer within ${timeoutMs} ms`, { cause: error });
    const kind = REJECTION_CODES.has(error.code) ? 'rejected' : 'upstream_error';
    return new UpstreamFailure(kind, `the upstream answered with error ${error.code}: ${error.message.replace(/^MCP error -?\d+: /, '')}`, { cause: error });
  }
  // A response the edge would not read (too large, not JSON-RPC): the upstream misbehaved, the connection is fine.
  if (error instanceof UpstreamHttpError && error.status === -1) return new UpstreamFailure('upstream_error', error.message, { cause: error });
  const reason = error instanceof Error ? error.message : String(error);
  return new UpstreamFailure('unreachable', `the upstream could not be reached (${reason})`, { cause: error });
}

/**
 * A 404 to a request in a session: the upstream forgot it (it restarted). An upstream that is
 * only away keeps its session when it comes back; a tool call drops a connection it cannot reach.
 */
function sessionIsGone(error: unknown): boolean {
  return error instanceof UpstreamHttpError && error.status === 404;
}

/**
 * The shared connection of a server, or one per downstream session when the server keeps client
 * state; a 2026-07-28 server has no sessions to keep it in, so it is always shared.
 */
function connectionKey(upstream: CatalogUpstream, sessionId: string | undefined, era: UpstreamEra | undefined): string {
  return upstream.sessionAffinity && sessionId !== undefined && era !== 'stateless' ? `${upstream.server}#${sessionId}` : upstream.server;
}

function eraKey(upstream: CatalogUpstream): string {
  return `${upstream.server} ${upstream.url ?? ''}`;
}

/**
 * One persistent SDK client session per upstream server, opened on first use and reopened with
 * backoff after it drops. Each opening lists the upstream's tools for drift detection. An HTTP
 * upstream is first probed with `server/discover`: one that speaks 2026-07-28 gets stateless
 * requests behind the same SDK client (stateless-client.transport.ts); the others get the
 * `initialize` handshake, and are not probed again until a connection to them fails.
 */
export class UpstreamPool {
  private readonly connections = new Map<string, Promise<Connection>>();
  private readonly failures = new Map<string, { count: number; at: number; reason: string }>();
  private readonly listeners: UpstreamToolsListener[] = [];
  private readonly setups: UpstreamClientSetup[] = [];
  /** Which revision each HTTP upstream (by server and url) answered the probe with; a session one is not probed again. */
  private readonly eras = new Map<string, UpstreamEra>();

  constructor(private readonly logger: Logger, private readonly clock: () => number = Date.now, private readonly options: UpstreamPoolOptions = DEFAULT_POOL_OPTIONS) {}

  /** Register a setup for every client opened from now on (the proxy's relays). */
  onClient(setup: UpstreamClientSetup): void {
    this.setups.push(setup);
  }

  /** The shared client of an upstream, for the proxied primitives (resources, prompts, …). */
  async client(upstream: CatalogUpstream): Promise<Client> {
    return (await this.connection(upstream)).client;
  }

  onTools(listener: UpstreamToolsListener): void {
    this.listeners.push(listener);
  }

  /** Opens the connection if needed (and so runs drift detection before a first call). */
  async ready(upstream: CatalogUpstream): Promise<void> {
    await this.connection(upstream);
  }

  async call(
    upstream: CatalogUpstream, tool: string, args: Record<string, unknown>, timeoutMs: number, cancellation?: CallCancellation, options: UpstreamCallOptions = {},
  ): Promise<CallToolResult> {
    const key = connectionKey(upstream, options.sessionId, this.eras.get(eraKey(upstream)));
    const connection = await this.connection(upstream, key);
    try {
      // A call with progress needs the SDK client's progress tokens; one to a 2026-07-28 upstream, its input rounds.
      if (connection.direct && !options.onprogress) return await callDirect(connection.direct, { name: tool, arguments: args }, timeoutMs, cancellation);
      const requestOptions = { timeout: timeoutMs, signal: cancellation?.signal, onprogress: options.onprogress };
      // request(), not callTool(): the SDK would check the result against the schema the upstream
      // advertises; the edge checks it against the one published (upstream.step.ts).
      return await connection.client.request({ method: 'tools/call', params: { name: tool, arguments: args } }, CallToolResultSchema, requestOptions);
    } catch (error) {
      // The caller gave up: nothing is known of the upstream, whose connection stays.
      if (cancellation?.aborted) throw error;
      const failure = classifyUpstreamError(error, timeoutMs);
      if (failure.kind === 'unreachable') this.drop(key, connection);
      throw failure;
    }
  }

  async close(): Promise<void> {
    const all = [...this.connections.values()];
    this.connections.clear();
    await Promise.allSettled(all.map(async (pending) => {
      const c = await pending;
      clearInterval(c.relist);
      await c.client.close();
    }));
  }

  /** Closes the upstream sessions opened for one downstream session (session affinity). */
  async release(sessionId: string): Promise<void> {
    const suffix = `#${sessionId}`;
    for (const [key, pending] of [...this.connections]) {
      if (!key.endsWith(suffix)) continue;
      this.connections.delete(key);
      await pending.then((c) => this.drop(key, c), () => undefined);
    }
  }

  private connection(upstream: CatalogUpstream, key = upstream.server): Promise<Connection> {
    let pending = this.connections.get(key);
    if (!pending) {
      pending = this.open(upstream, key);
      this.connections.set(key, pending);
      pending.catch(() => this.connections.delete(key));
    }
    return pending;
  }

  private async open(upstream: CatalogUpstream, key: string): Promise<Connection> {
    const failure = this.failures.get(upstream.server);
    if (failure) {
      const wait = RECONNECT_BACKOFF_MS[Math.min(failure.count, RECONNECT_BACKOFF_MS.length - 1)];
      if (this.clock() - failure.at < wait) throw new UpstreamFailure('unreachable', `${failure.reason}; the edge retries the connection shortly`);
    }
    const client = new Client({ name: 'estate-edge', version: '0.1.0' }, { capabilities: {} });
    const connection: Connection = { client, closed: false };
    client.onclose = () => this.drop(key, connection);
    // A proxied request (a resource, a prompt) fails on its own; a session the upstream no longer
    // knows (404: it restarted) means the connection is dead: the next request opens a new one
    // instead of asking through the dead one until a tool call drops it.
    client.onerror = (error) => {
      if (!sessionIsGone(error)) return;
      this.logger.info({ server: upstream.server, err: error }, 'upstream session gone; reconnecting on the next request');
      // After the failing request has settled with its own error (closing now would answer it "connection closed").
      setTimeout(() => this.drop(key, connection), 0).unref();
    };
    for (const setup of this.setups) setup(client, upstream);
    try {
      const transport = this.transportFor(upstream);
      await client.connect(transport);
      connection.direct = transport instanceof StatelessUpstreamTransport ? transport.sessionTransport : transport instanceof HttpClientTransport ? transport : undefined;
      this.failures.delete(upstream.server);
    } catch (error) {
      const previous = this.failures.get(upstream.server)?.count ?? 0;
      const failed = classifyUpstreamError(error, 0);
      this.failures.set(upstream.server, { count: previous + 1, at: this.clock(), reason: failed.message });
      // The upstream may have been replaced by one of the other era: the next opening probes again.
      this.eras.delete(eraKey(upstream));
      this.logger.warn({ server: upstream.server, err: error }, 'upstream connection failed');
      void client.close().catch(() => undefined);
      throw failed;
    }
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void this.inspect(upstream.server, client));
    await this.inspect(upstream.server, client);
    // An upstream may change a tool without announcing it: list again now and then, so drift is
    // caught on a live connection and not only when it reopens.
    connection.relist = setInterval(() => void this.inspect(upstream.server, client), this.options.relistMs);
    connection.relist.unref();
    return connection;
  }

  /** Lists every page of the upstream's tools and hands them to the drift listeners. */
  private async inspect(server: string, client: Client): Promise<void> {
    try {
      const tools: Tool[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        // An upstream that hands out cursors forever is misbehaving: stop (the partial list is not judged).
        if ((pages += 1) > MAX_TOOL_PAGES) throw new Error(`the upstream's tools/list ran past ${MAX_TOOL_PAGES} pages`);
        const page = await client.listTools(cursor === undefined ? undefined : { cursor });
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor);
      for (const listener of this.listeners) listener(server, tools);
    } catch (error) {
      this.logger.warn({ server, err: error }, 'could not list the upstream tools');
    }
  }

  private transportFor(upstream: CatalogUpstream) {
    if (upstream.transport === 'stdio') {
      if (!upstream.command) throw new UpstreamFailure('unreachable', 'the upstream has no command registered');
      const transport = new BoundedStdioTransport(upstream.command, upstream.args ?? [], this.options.read.maxMessageBytes);
      // An unread stderr pipe fills up and stalls the child: forward its lines to our log.
      transport.stderr.on('data', (chunk: Buffer) => this.logger.debug({ server: upstream.server, stderr: chunk.toString('utf8').trim() }, 'upstream stderr'));
      return transport;
    }
    if (!upstream.url) throw new UpstreamFailure('unreachable', 'the upstream has no url registered');
    const http = new HttpClientTransport(new URL(upstream.url), this.options.read);
    const key = eraKey(upstream);
    if (this.eras.get(key) === 'session') return http;
    return new StatelessUpstreamTransport(http, { remember: (era) => void this.eras.set(key, era) });
  }

  private drop(key: string, connection: Connection): void {
    if (connection.closed) return;
    connection.closed = true;
    clearInterval(connection.relist);
    void this.connections.get(key)?.then((current) => {
      if (current === connection) this.connections.delete(key);
    }, () => undefined);
    void connection.client.close().catch(() => undefined);
  }
}
