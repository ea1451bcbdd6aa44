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

  /** Writes every row the batch changed, once each, in the batch's transaction. */
  async flush(): Promise<void> {
    for (const name of this.dirty.servers) await this.repo.upsertServer(this.runner, this.servers.get(name) as ServerRegisteredData);
    for (const name of this.dirty.tools) await this.repo.upsertTool(this.runner, this.tools.get(name) as CatalogEntry);
    for (const id of this.dirty.streams) await this.repo.setStreamPosition(this.runner, id, this.streams.get(id) as number);
  }
}
