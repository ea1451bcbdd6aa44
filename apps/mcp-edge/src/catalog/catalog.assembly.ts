import type { CatalogEntry, CatalogHead, CatalogVersion, CatalogVersionRecord } from '@estate/events';

/**
 * Catalog entries put back together from the topic's heads and version records. Each key keeps
 * its newest record (an older position is a replay and changes nothing), as compaction does. A
 * tool is assembled once its head and every version the head lists are held; until then the
 * replica keeps serving what it had, so a head read before one of its versions (another
 * partition, a split send) never shows a tool with a version missing.
 */
export class CatalogAssembly {
  private readonly heads = new Map<string, CatalogHead>();
  private readonly versions = new Map<string, Map<string, CatalogVersionRecord>>();
  /** Tools whose head or versions changed since the last `assembled()`. */
  private readonly touched = new Set<string>();

  head(head: CatalogHead): void {
    const held = this.heads.get(head.name);
    if (held !== undefined && head.position < held.position) return;
    this.heads.set(head.name, head);
    this.touched.add(head.name);
  }

  version(record: CatalogVersionRecord): void {
    let versions = this.versions.get(record.tool);
    if (versions === undefined) this.versions.set(record.tool, (versions = new Map()));
    const held = versions.get(record.version.version);
    if (held !== undefined && record.position < held.position) return;
    versions.set(record.version.version, record);
    this.touched.add(record.tool);
  }

  /** A version record's tombstone: a head that lists the version cannot be assembled until it comes back. */
  dropVersion(tool: string, version: string): void {
    this.versions.get(tool)?.delete(version);
    this.touched.add(tool);
  }

  /** The tool was withdrawn, or a whole entry (the older form) replaced it: its head no longer decides. */
  dropHead(name: string): void {
    this.heads.delete(name);
    this.touched.delete(name);
  }

  /** The touched tools that are whole now, as entries; those that are not stay as the replica holds them. */
  assembled(): Array<[string, CatalogEntry]> {
    const out: Array<[string, CatalogEntry]> = [];
    for (const name of this.touched) {
      const entry = this.entryOf(name);
      if (entry !== undefined) out.push([name, entry]);
    }
    this.touched.clear();
    return out;
  }

  private entryOf(name: string): CatalogEntry | undefined {
    const head = this.heads.get(name);
    if (head === undefined) return undefined;
    const held = this.versions.get(name);
    const versions: CatalogVersion[] = [];
    for (const version of head.versions) {
      const record = held?.get(version);
      if (record === undefined) return undefined;
      versions.push(record.version);
    }
    return { name, upstream: head.upstream, versions, position: head.position };
  }
}
