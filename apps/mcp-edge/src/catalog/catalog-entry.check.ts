import { isJsonObject as isRecord } from '@estate/protocol';
import { catalogVersionKey, type CatalogEntry, type CatalogHead, type CatalogVersionRecord } from '@estate/events';

const isText = (value: unknown): value is string => typeof value === 'string' && value.length > 0;

/** A record of the catalog topic as the replica applies it: a head, a version, or a whole entry (what an older discovery wrote). */
export type CatalogRecord = { kind: 'head'; head: CatalogHead } | { kind: 'version'; record: CatalogVersionRecord } | { kind: 'entry'; entry: CatalogEntry };

/**
 * Reads one record of the catalog topic. A record the replica would trip over later (in a
 * tools/list or a call) is refused here with its reason, so it never reaches a session.
 */
export function readCatalogRecord(key: string, value: string): { ok: true; record: CatalogRecord } | { ok: false; reason: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return { ok: false, reason: 'not JSON' };
  }
  if (!isRecord(parsed)) return { ok: false, reason: 'not a JSON object' };
  const problem = parsed.kind === 'head' ? headProblem(key, parsed) : parsed.kind === 'version' ? versionRecordProblem(key, parsed) : parsed.kind === undefined ? entryProblem(key, parsed) : '"kind" is neither "head" nor "version"';
  if (problem !== undefined) return { ok: false, reason: problem };
  if (parsed.kind === 'head') return { ok: true, record: { kind: 'head', head: parsed as unknown as CatalogHead } };
  if (parsed.kind === 'version') return { ok: true, record: { kind: 'version', record: parsed as unknown as CatalogVersionRecord } };
  return { ok: true, record: { kind: 'entry', entry: parsed as unknown as CatalogEntry } };
}

/** What an entry and a head share: the name (the key), the position and the upstream. */
function toolProblem(key: string, tool: Record<string, unknown>): string | undefined {
  if (tool.name !== key) return '"name" differs from the record key';
  if (!Number.isSafeInteger(tool.position)) return '"position" is not an integer';
  if (!isRecord(tool.upstream) || !isText(tool.upstream.server) && tool.upstream.server !== '') return '"upstream.server" is missing';
  if (!Array.isArray(tool.versions)) return '"versions" is not an array';
  return undefined;
}

function headProblem(key: string, head: Record<string, unknown>): string | undefined {
  const problem = toolProblem(key, head);
  if (problem !== undefined) return problem;
  const versions = head.versions as unknown[];
  if (!versions.every(isText)) return '"versions" of a head must be version strings';
  if (new Set(versions).size !== versions.length) return '"versions" of a head lists a version twice';
  return undefined;
}

function versionRecordProblem(key: string, record: Record<string, unknown>): string | undefined {
  if (!isText(record.tool)) return '"tool" is missing';
  if (!Number.isSafeInteger(record.position)) return '"position" is not an integer';
  const problem = versionProblem(record.version);
  if (problem !== undefined) return `version: ${problem}`;
  const version = (record.version as { version: string }).version;
  if (catalogVersionKey(record.tool, version) !== key) return 'the record key is not "tool@version" of its value';
  return undefined;
}

function entryProblem(key: string, entry: Record<string, unknown>): string | undefined {
  const problem = toolProblem(key, entry);
  if (problem !== undefined) return problem;
  for (const [index, version] of (entry.versions as unknown[]).entries()) {
    const found = versionProblem(version);
    if (found) return `versions[${index}]: ${found}`;
  }
  return undefined;
}

function versionProblem(version: unknown): string | undefined {
  if (!isRecord(version)) return 'not an object';
  if (!isText(version.version) || !isText(version.status)) return '"version" and "status" must be strings';
  const spec = version.spec;
  if (!isRecord(spec)) return '"spec" is not an object';
  if (!isText(spec.name) || !isText(spec.version) || !isRecord(spec.inputSchema)) return '"spec" lacks name, version or inputSchema';
  if (!Array.isArray(spec.requiredScopes) || !Array.isArray(spec.tenants) || !isText(spec.dataClassification)) {
    return '"spec" lacks requiredScopes, tenants or dataClassification';
  }
  return undefined;
}
