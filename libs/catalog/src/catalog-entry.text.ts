import { catalogVersionKey, type CatalogEntry, type CatalogVersion } from '@estate/events';

/**
 * The JSON text of each version object, written once: an entry holds every version of its tool
 * and is written to PostgreSQL and the catalog topic after every batch that touches it, while a
 * publish adds one version. The fold never changes a version object in place (it copies), so a
 * text kept per object stays that object's text.
 */
const texts = new WeakMap<CatalogVersion, string>();

export function catalogVersionText(version: CatalogVersion): string {
  let text = texts.get(version);
  if (text === undefined) {
    text = JSON.stringify(version);
    texts.set(version, text);
  }
  return text;
}

/** A version read back from its stored text: the text is kept, so writing it again costs nothing. */
export function parseCatalogVersion(text: string): CatalogVersion {
  const version = JSON.parse(text) as CatalogVersion;
  texts.set(version, text);
  return version;
}

/** `JSON.stringify(entry)`, character for character, with each version's text from the cache above. */
export function catalogEntryText(entry: CatalogEntry): string {
  const fields: string[] = [];
  for (const [key, value] of Object.entries(entry)) {
    if (value === undefined) continue;
    const text = key === 'versions' ? `[${(value as CatalogVersion[]).map(catalogVersionText).join(',')}]` : JSON.stringify(value);
    fields.push(`${JSON.stringify(key)}:${text}`);
  }
  return `{${fields.join(',')}}`;
}

/** A record of the catalog topic: its key and its JSON text. */
export interface CatalogRecordText {
  key: string;
  value: string;
}

/** The tool's head record: the entry without its versions' contents, which go as records of their own. */
export function catalogHeadText(entry: CatalogEntry): CatalogRecordText {
  const head = { kind: 'head', name: entry.name, upstream: entry.upstream, versions: entry.versions.map((v) => v.version), position: entry.position };
  return { key: entry.name, value: JSON.stringify(head) };
}

/** One version's record, with the version's text from the cache: a version that did not change is never serialized again. */
export function catalogVersionRecordText(entry: CatalogEntry, version: CatalogVersion): CatalogRecordText {
  const value = `{"kind":"version","tool":${JSON.stringify(entry.name)},"position":${entry.position},"version":${catalogVersionText(version)}}`;
  return { key: catalogVersionKey(entry.name, version.version), value };
}
