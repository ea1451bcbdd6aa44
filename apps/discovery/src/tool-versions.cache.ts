import { keepWithin } from '@estate/protocol';
import type { CatalogVersion } from '@estate/events';

/** Tools whose versions are kept; past it the least recently used tool is dropped (and read again when next touched). */
const DEFAULT_TOOLS = 20_000;

/**
 * The versions of each tool as committed, with the entry position they belong to. A batch locks
 * the tool's head row and reads its position; when it is the position kept here, the versions
 * need not be read (and parsed) again. Any other writer (another discovery instance, a rebuild)
 * moves the position or clears this, so a stale list is never used.
 */
export class ToolVersionsCache {
  private readonly kept = new Map<string, { position: number; versions: CatalogVersion[] }>();

  constructor(private readonly limit = DEFAULT_TOOLS) {}

  get(name: string, position: number): CatalogVersion[] | undefined {
    const found = this.kept.get(name);
    if (found === undefined || found.position !== position) return undefined;
    this.kept.delete(name);
    this.kept.set(name, found);
    // A copy: the list kept must stay as committed whatever a caller does with the one it gets.
    return found.versions.slice();
  }

  /** Only what is committed, or read under the row's lock: a batch that rolls back must not leave its versions here. */
  set(name: string, position: number, versions: readonly CatalogVersion[]): void {
    this.kept.delete(name);
    this.kept.set(name, { position, versions: versions.slice() });
    keepWithin(this.kept, this.limit);
  }

  clear(): void {
    this.kept.clear();
  }
}
