import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { CatalogUpstream } from '@estate/events';
import type { Logger } from '@estate/platform';

/** Why an upstream call did not produce a result; becomes an `isError` tool result, never a protocol error. */
export class UpstreamFailure extends Error {
  constructor(readonly kind: 'unreachable' | 'timeout' | 'protocol', message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

interface Connection {
  client: Client;
  closed: boolean;
}

const RECONNECT_BACKOFF_MS = [0, 100, 500, 2000, 5000];

/**
 * One persistent SDK client session per upstream server, opened on first use and reopened with
 * backoff after it drops.
 */
export class UpstreamPool {
  private readonly connections = new Map<string, Promise<Connection>>();
  private readonly failures = new Map<string, { count: number; at: number }>();

  constructor(private readonly logger: Logger, private readonly clock: () => number = Date.now) {}

  async call(upstream: CatalogUpstream, tool: string, args: Record<string, unknown>, timeoutMs: number, signal?: AbortSignal): Promise<CallToolResult> {
    const connection = await this.connection(upstream);
    try {
      return (await connection.client.callTool({ name: tool, arguments: args }, undefined, { timeout: timeoutMs, signal })) as CallToolResult;
    } catch (error) {
      const code = (error as { code?: number }).code;
      if (code === -32001) throw new UpstreamFailure('timeout', `the upstream did not answer within ${timeoutMs} ms`, { cause: error });
      if (typeof code === 'number') throw new UpstreamFailure('protocol', `the upstream refused the call (${code})`, { cause: error });
      this.drop(upstream.server, connection);
      throw new UpstreamFailure('unreachable', 'the upstream connection failed', { cause: error });
    }
  }

  async close(): Promise<void> {
    const all = [...this.connections.values()];
    this.connections.clear();
    await Promise.allSettled(all.map(async (c) => (await c).client.close()));
  }

  private connection(upstream: CatalogUpstream): Promise<Connection> {
    const key = upstream.server;
    let pending = this.connections.get(key);
    if (!pending) {
      pending = this.open(upstream);
      this.connections.set(key, pending);
      pending.catch(() => this.connections.delete(key));
    }
    return pending;
  }

  private async open(upstream: CatalogUpstream): Promise<Connection> {
    const failure = this.failures.get(upstream.server);
    if (failure) {
      const wait = RECONNECT_BACKOFF_MS[Math.min(failure.count, RECONNECT_BACKOFF_MS.length - 1)];
      if (this.clock() - failure.at < wait) throw new UpstreamFailure('unreachable', 'the upstream is unreachable; retrying shortly');
    }
    const client = new Client({ name: 'estate-edge', version: '0.1.0' }, { capabilities: {} });
    const connection: Connection = { client, closed: false };
    client.onclose = () => this.drop(upstream.server, connection);
    try {
      await client.connect(this.transportFor(upstream));
      this.failures.delete(upstream.server);
      return connection;
    } catch (error) {
      const previous = this.failures.get(upstream.server)?.count ?? 0;
      this.failures.set(upstream.server, { count: previous + 1, at: this.clock() });
      this.logger.warn({ server: upstream.server, err: error }, 'upstream connection failed');
      throw new UpstreamFailure('unreachable', 'the upstream connection failed', { cause: error });
    }
  }

  private transportFor(upstream: CatalogUpstream) {
    if (upstream.transport === 'stdio') {
      if (!upstream.command) throw new UpstreamFailure('unreachable', 'the upstream has no command registered');
      return new StdioClientTransport({ command: upstream.command, args: upstream.args ?? [], stderr: 'pipe' });
    }
    if (!upstream.url) throw new UpstreamFailure('unreachable', 'the upstream has no url registered');
    return new StreamableHTTPClientTransport(new URL(upstream.url));
  }

  private drop(server: string, connection: Connection): void {
    if (connection.closed) return;
    connection.closed = true;
    void this.connections.get(server)?.then((current) => {
      if (current === connection) this.connections.delete(server);
    }, () => undefined);
    void connection.client.close().catch(() => undefined);
  }
}
