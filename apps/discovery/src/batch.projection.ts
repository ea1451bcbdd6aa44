import type { QueryRunner } from 'typeorm';
import type { CatalogEntry, ServerRegisteredData } from '@estate/events';
import type { ProjectionTarget } from './catalog.apply';
import type { CatalogRepository } from './store/catalog.repository';

/**
 * The projection as one batch sees it: every row is read from the batch's transaction at most
 * once (locked, as the one-by-one path does) and written once at the end, however many events of
 * the batch touch it. Twenty versions of one tool in a batch cost one read and one write of its
 * entry, not twenty of each; the result is the same as applying the events one by one.
 */
export class BatchProjection implements ProjectionTarget {
  private readonly streams = new Map<string, number | undefined>();
  private readonly servers = new Map<string, ServerRegisteredData | undefined>();
  private readonly tools = new Map<string, CatalogEntry | undefined>();
  private readonly dirty = { streams: new Set<string>(), servers: new Set<string>(), tools: new Set<string>() };

  constructor(private readonly repo: CatalogRepository, private readonly runner: QueryRunner) {}

  /**
   * Reads, in one round trip, the rows the batch's events name (their streams, tools and servers),
   * with the same locks: a batch of sixteen publishes read thirty-odd rows one query each. What a
   * value does not name plainly (it is malformed, or a server's tools) is still read when asked.
   */
  async prefetch(values: unknown[]): Promise<void> {
    const wanted = { streams: new Set<string>(), tools: new Set<string>(), servers: new Set<string>() };
    for (const value of values) namedRows(value, wanted);
    const streams = [...wanted.streams].filter((id) => !this.streams.has(id));
    const tools = [...wanted.tools].filter((name) => !this.tools.has(name));
    const servers = [...wanted.servers].filter((name) => !this.servers.has(name));
    if (streams.length + tools.length + servers.length === 0) return;
    const found = await this.repo.batchRows(this.runner, { streams, tools, servers });
    for (const id of streams) this.streams.set(id, found.streams.get(id));
    for (const name of tools) this.tools.set(name, found.tools.get(name));
    for (const name of servers) this.servers.set(name, found.servers.get(name));
    // Servers of the tools read: their rows came along (not locked, as server() does not lock).
    for (const [name, server] of found.servers) if (!this.servers.has(name)) this.servers.set(name, server);
  }

  async streamPosition(streamId: string): Promise<number | undefined> {
    if (!this.streams.has(streamId)) this.streams.set(streamId, await this.repo.streamPosition(this.runner, streamId));
    return this.streams.get(streamId);
  }

  async setStreamPosition(streamId: string, position: number): Promise<void> {
    this.streams.set(streamId, position);
    this.dirty.streams.add(streamId);
  }

  async server(name: string): Promise<ServerRegisteredData | undefined> {
    if (!this.servers.has(name)) this.servers.set(name, await this.repo.server(this.runner, name));
    return this.servers.get(name);
  }

  async upsertServer(server: ServerRegisteredData): Promise<void> {
    this.servers.set(server.name, server);
    this.dirty.servers.add(server.name);
  }

  async tool(name: string): Promise<CatalogEntry | undefined> {
    if (!this.tools.has(name)) this.tools.set(name, await this.repo.tool(this.runner, name));
    return this.tools.get(name);
  }

  /** The stored tools of the server as this batch changed them, plus tools this batch gave it. */
  async toolsOfServer(server: string): Promise<CatalogEntry[]> {
    const stored = await this.repo.toolsOfServer(this.runner, server);
    const result = new Map<string, CatalogEntry>();
    for (const entry of stored) {
      if (!this.tools.has(entry.name)) this.tools.set(entry.name, entry);
      const current = this.tools.get(entry.name);
      if (current?.upstream.server === server) result.set(entry.name, current);
    }
    for (const [name, entry] of this.tools) if (entry?.upstream.server === server) result.set(name, entry);
    return [...result.values()];
  }

  async upsertTool(entry: CatalogEntry): Promise<void> {
    this.tools.set(entry.name, entry);
    this.dirty.tools.add(entry.name);
  }

  /**
   * The entries this batch wrote for these tools, as committed with it: the republish after commit
   * sends them instead of reading them back. Undefined when one of them was not written by the batch.
   */
  written(names: string[]): CatalogEntry[] | undefined {
    const entries: CatalogEntry[] = [];
    for (const name of names) {
      const entry = this.dirty.tools.has(name) ? this.tools.get(name) : undefined;
      if (entry === undefined) return undefined;
      entries.push(entry);
    }
    return entries;
  }

  /** Writes every row the batch changed, once each, in the batch's transaction: one statement for all of them. */
  async flush(): Promise<void> {
    await this.repo.writeBatch(this.runner, {
      servers: [...this.dirty.servers].map((name) => this.servers.get(name) as ServerRegisteredData),
      tools: [...this.dirty.tools].map((name) => this.tools.get(name) as CatalogEntry),
      streams: [...this.dirty.streams].map((id): [string, number] => [id, this.streams.get(id) as number]),
    });
  }
}

/** The stream, tool and server a registry envelope names, as far as its shape says; anything else is left to the lazy reads. */
function namedRows(value: unknown, wanted: { streams: Set<string>; tools: Set<string>; servers: Set<string> }): void {
  if (!isRecord(value) || typeof value.stream !== 'string' || !isRecord(value.data)) return;
  wanted.streams.add(value.stream);
  const { data } = value;
  if (value.type === 'ServerRegistered') {
    if (typeof data.name === 'string') wanted.servers.add(data.name);
    return;
  }
  const spec = value.type === 'ToolVersionPublished' && isRecord(data.spec) ? data.spec : undefined;
  const name = spec ? spec.name : data.name;
  if (typeof name === 'string') wanted.tools.add(name);
  const server = spec && isRecord(spec.upstream) ? spec.upstream.server : undefined;
  if (typeof server === 'string') wanted.servers.add(server);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
