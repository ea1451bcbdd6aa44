import type { QueryRunner } from 'typeorm';
import type { CatalogEntry, CatalogVersion, ServerRegisteredData } from '@estate/events';
import { rowsNamedBy, type ProjectionTarget } from './catalog.apply';
import type { ChangedVersions } from './catalog.publisher';
import type { CatalogToolHead } from './store/catalog-tool.entity';
import { entryOf, type BatchCheckpoint, type ToolWrite } from './store/catalog-tool.rows';
import type { CatalogRepository } from './store/catalog.repository';
import { ToolVersionsCache } from './tool-versions.cache';

/**
 * The projection as one batch sees it: every row is read from the batch's transaction at most
 * once (locked, as the one-by-one path does) and written once at the end, however many events of
 * the batch touch it. Twenty versions of one tool in a batch cost one read and one write of its
 * entry, not twenty of each; the result is the same as applying the events one by one. Of an
 * entry's versions only those the batch added or changed are written (a row each), and the
 * versions themselves are read only when the cache does not hold them at the head's position.
 */
export class BatchProjection implements ProjectionTarget {
  private readonly streams = new Map<string, number | undefined>();
  private readonly servers = new Map<string, ServerRegisteredData | undefined>();
  private readonly tools = new Map<string, CatalogEntry | undefined>();
  private readonly dirty = { streams: new Set<string>(), servers: new Set<string>(), tools: new Set<string>() };
  /** The version objects of each tool as read: anything else in its entry at the end is written. */
  private readonly stored = new Map<string, Set<CatalogVersion>>();
  /** What flush wrote: the catalog topic is sent the same versions. */
  private writes?: ToolWrite[];

  constructor(
    private readonly repo: CatalogRepository,
    private readonly runner: QueryRunner,
    private readonly cache: ToolVersionsCache = new ToolVersionsCache(),
  ) {}

  /**
   * Reads the stream positions, tool rows and servers the batch's messages name in one statement,
   * instead of several per event (names from catalog.apply's rowsNamedBy). A message whose event turns out not
   * to apply costs a row read, nothing more; what applying reads later is then already here.
   */
  async prefetch(raws: readonly unknown[]): Promise<void> {
    const streams = new Set<string>();
    const tools = new Set<string>();
    const servers = new Set<string>();
    for (const raw of raws) {
      const named = rowsNamedBy(raw);
      if (named.stream !== undefined && !this.streams.has(named.stream)) streams.add(named.stream);
      if (named.tool !== undefined && !this.tools.has(named.tool)) tools.add(named.tool);
      if (named.server !== undefined && !this.servers.has(named.server)) servers.add(named.server);
    }
    if (streams.size + tools.size + servers.size === 0) return;
    const read = await this.repo.prefetch(this.runner, { streams: [...streams], tools: [...tools], servers: [...servers] });
    for (const id of streams) this.streams.set(id, read.positions.get(id));
    for (const name of servers) this.servers.set(name, read.servers.get(name));
    if (tools.size === 0) return;
    for (const entry of await this.load(read.heads)) this.tools.set(entry.name, entry);
    for (const name of tools) if (!this.tools.has(name)) this.tools.set(name, undefined);
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
    if (!this.tools.has(name)) {
      const [entry] = await this.load(await this.repo.lockHeads(this.runner, { names: [name] }));
      this.tools.set(name, entry);
    }
    return this.tools.get(name);
  }

  /** Entries for these locked heads: versions from the cache when it holds the head's position, else read (and then kept). */
  private async load(heads: CatalogToolHead[]): Promise<CatalogEntry[]> {
    const cached = heads.map((head) => this.cache.get(head.name, head.position));
    const read = await this.repo.versionsOf(this.runner, heads.filter((_, i) => cached[i] === undefined).map((h) => h.name));
    return heads.map((head, i) => {
      let versions = cached[i];
      if (versions === undefined) {
        versions = read.get(head.name) ?? [];
        this.cache.set(head.name, head.position, versions);
      }
      this.stored.set(head.name, new Set(versions));
      return entryOf(head, versions);
    });
  }

  /** The stored tools of the server as this batch changed them, plus tools this batch gave it. */
  async toolsOfServer(server: string): Promise<CatalogEntry[]> {
    const heads = await this.repo.lockHeads(this.runner, { server });
    for (const entry of await this.load(heads.filter((h) => !this.tools.has(h.name)))) this.tools.set(entry.name, entry);
    const result: CatalogEntry[] = [];
    for (const entry of this.tools.values()) if (entry?.upstream.server === server) result.push(entry);
    return result;
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

  /**
   * The versions of each tool the batch changed, as the catalog topic needs them: the ones written
   * (every version of a tool the batch did not read); undefined for a tool it did not change.
   */
  changedVersions(): ChangedVersions {
    const changed = new Map((this.writes ?? this.toolWrites()).map(({ entry, versions }) => [entry.name, new Set(versions.map((v) => v.version))]));
    return (name) => changed.get(name);
  }

  /** Writes every row the batch changed, once each, in the batch's transaction; with its checkpoint when given. */
  async flush(checkpoint?: BatchCheckpoint): Promise<void> {
    for (const name of this.dirty.servers) await this.repo.upsertServer(this.runner, this.servers.get(name) as ServerRegisteredData);
    const positions = new Map([...this.dirty.streams].map((id) => [id, this.streams.get(id) as number]));
    this.writes = this.toolWrites();
    await this.repo.writeTools(this.runner, this.writes, positions, checkpoint);
  }

  /** Each changed tool's head, and the versions that are not the objects read: the fold copies a version it changes. */
  private toolWrites(): ToolWrite[] {
    return [...this.dirty.tools].map((name) => {
      const entry = this.tools.get(name) as CatalogEntry;
      const stored = this.stored.get(name);
      return { entry, versions: stored === undefined ? entry.versions : entry.versions.filter((v) => !stored.has(v)) };
    });
  }

  /** After commit: the written entries' versions go to the cache at their new positions. */
  remember(): void {
    for (const name of this.dirty.tools) {
      const entry = this.tools.get(name) as CatalogEntry;
      this.cache.set(name, entry.position, entry.versions);
    }
  }
}
