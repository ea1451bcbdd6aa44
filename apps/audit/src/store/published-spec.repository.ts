import type { DataSource } from 'typeorm';
import type { VisibilityFacts } from '@estate/contracts';
import type { AuditEntry } from '../domain/audit-entry.mapper';
import { visibilityFactsOf } from '../domain/feed.visibility';
import { AuditEntryEntity } from './audit-entry.entity';

/** Specs are immutable once published, so a found one is kept; the cap only bounds memory. */
const MAX_CACHED = 10_000;

/**
 * The visibility facts of the tool version a registry entry is about, read from the trail's own
 * `ToolVersionPublished` entry: a deprecation or retirement carries only a name and a version.
 * The registry log keys events by tool, so a version's publication is recorded before anything
 * that follows it.
 */
export class PublishedSpecs {
  private readonly cache = new Map<string, VisibilityFacts>();

  constructor(private readonly db: DataSource, private readonly topic: string) {}

  async factsFor(entry: Pick<AuditEntry, 'type' | 'tool' | 'version' | 'payload'>): Promise<VisibilityFacts | undefined> {
    if (entry.type === 'ToolVersionPublished') return visibilityFactsOf((entry.payload.data as { spec?: unknown } | null)?.spec);
    if (entry.tool === null || entry.version === null) return undefined;
    return this.factsOfVersion(entry.tool, entry.version);
  }

  /** The visibility facts of `tool@version` as published; undefined when the trail holds no such publication. */
  async factsOfVersion(tool: string, version: string): Promise<VisibilityFacts | undefined> {
    const key = `${tool}@${version}`;
    const cached = this.cache.get(key);
    if (cached) return cached;
    const row = await this.db.manager.findOne(AuditEntryEntity, {
      where: { topic: this.topic, type: 'ToolVersionPublished', tool, version },
      order: { seq: 'ASC' },
    });
    const facts = row ? visibilityFactsOf((JSON.parse(row.payload) as { data?: { spec?: unknown } }).data?.spec) : undefined;
    if (facts) {
      if (this.cache.size >= MAX_CACHED) this.cache.clear();
      this.cache.set(key, facts);
    }
    return facts;
  }
}
