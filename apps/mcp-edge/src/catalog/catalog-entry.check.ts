import { isJsonObject as isRecord } from '@estate/protocol';
import type { CatalogEntry } from '@estate/events';

const isText = (value: unknown): value is string => typeof value === 'string' && value.length > 0;

/**
 * Reads one record of the catalog topic. An entry the replica would trip over later (in a
 * tools/list or a call) is refused here with its reason, so it never reaches a session.
 */
export function readCatalogRecord(key: string, value: string): { ok: true; entry: CatalogEntry } | { ok: false; reason: string } {
  let entry: unknown;
  try {
    entry = JSON.parse(value);
  } catch {
    return { ok: false, reason: 'not JSON' };
  }
  const problem = entryProblem(key, entry);
  return problem === undefined ? { ok: true, entry: entry as CatalogEntry } : { ok: false, reason: problem };
}

function entryProblem(key: string, entry: unknown): string | undefined {
  if (!isRecord(entry)) return 'not a JSON object';
  if (entry.name !== key) return '"name" differs from the record key';
  if (!Number.isSafeInteger(entry.position)) return '"position" is not an integer';
  if (!isRecord(entry.upstream) || !isText(entry.upstream.server) && entry.upstream.server !== '') return '"upstream.server" is missing';
  if (!Array.isArray(entry.versions)) return '"versions" is not an array';
  for (const [index, version] of entry.versions.entries()) {
    const problem = versionProblem(version);
    if (problem) return `versions[${index}]: ${problem}`;
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
