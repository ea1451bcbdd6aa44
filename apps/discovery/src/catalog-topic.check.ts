import { isDeepStrictEqual } from 'node:util';
import { catalogHeadText, catalogVersionRecordText } from '@estate/catalog';
import { catalogVersionKey, catalogVersionKeyParts, type CatalogEntry } from '@estate/events';
import type { EventBus } from '@estate/platform';

/** The newest record of each key on the catalog topic (null: a tombstone), and how many records were read. */
export interface CatalogTopicRecords {
  latest: Map<string, string | null>;
  records: number;
}

/** What `verify` says of the catalog topic: whether a new edge would read the catalog from it. */
export interface CatalogTopicVerification {
  topic: string;
  /** False when the topic's offsets could not be read in time (the broker away): nothing was compared. */
  reachable: boolean;
  equal: boolean;
  /** Records read from the topic. */
  records: number;
  differences: string[];
}

/** Records per page read. */
const PAGE = 2000;

/**
 * Reads the whole catalog topic outside any group, as a new edge would, keeping each key's newest
 * record. Undefined when the topic does not exist.
 */
export async function readCatalogTopic(bus: Pick<EventBus, 'offsets' | 'readPage'>, topic: string): Promise<CatalogTopicRecords | undefined> {
  const readPage = bus.readPage;
  if (!readPage) throw new Error(`this bus cannot read ${topic} outside a consumer group`);
  const offsets = await bus.offsets(topic);
  if (offsets.length === 0) return undefined;
  const latest = new Map<string, string | null>();
  let records = 0;
  for (const { partition, low, high } of offsets) {
    const end = BigInt(high);
    for (let next = BigInt(low); next < end;) {
      const page = (await readPage.call(bus, topic, partition, String(next), PAGE)).filter((m) => BigInt(m.offset) < end);
      if (page.length === 0) break;
      for (const message of page) if (message.key !== null) latest.set(message.key, message.value);
      records += page.length;
      next = BigInt(page[page.length - 1].offset) + 1n;
    }
  }
  return { latest, records };
}

/**
 * Every way what a new edge reads from the catalog topic differs from the catalog, one line each
 * (empty: the topic holds the catalog). Each tool's head must be its current head, and each version
 * it lists must have its record with the version as the catalog holds it (a version record's
 * position is that of its last change, so it is not compared). A head of a tool the catalog does
 * not hold is a difference too; version records no head lists are not (no edge serves them).
 */
export function catalogTopicDifferences(tools: readonly CatalogEntry[], latest: ReadonlyMap<string, string | null>): string[] {
  const lines: string[] = [];
  const names = new Set<string>();
  for (const entry of tools) {
    names.add(entry.name);
    const head = latest.get(entry.name);
    if (head === undefined || head === null) {
      lines.push(`tool ${entry.name}: ${head === null ? 'withdrawn (a tombstone) on the topic' : 'no head record on the topic'}, so no edge serves it`);
      continue;
    }
    if (!isDeepStrictEqual(parse(head), parse(catalogHeadText(entry).value))) lines.push(`tool ${entry.name}: its head record on the topic differs from the catalog`);
    for (const version of entry.versions) {
      const record = latest.get(catalogVersionKey(entry.name, version.version));
      const expected = parse(catalogVersionRecordText(entry, version).value) as { version: unknown };
      if (record === undefined || record === null) lines.push(`tool ${entry.name}: no record of version ${version.version} on the topic`);
      else if (!isDeepStrictEqual((parse(record) as { version?: unknown } | undefined)?.version, expected.version)) {
        lines.push(`tool ${entry.name}: version ${version.version} on the topic differs from the catalog`);
      }
    }
  }
  for (const [key, value] of latest) {
    if (value !== null && catalogVersionKeyParts(key) === undefined && !names.has(key)) lines.push(`tool ${key}: on the topic, not in the catalog`);
  }
  return lines.sort();
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
