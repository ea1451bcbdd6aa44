import { stableStringify } from '@estate/contracts';
import type { CatalogEntry } from '@estate/events';

/** What an upstream says about one of its tools: the two fields a published contract fixes. */
export interface AdvertisedTool {
  name: string;
  description?: string;
  inputSchema: unknown;
}

export interface DriftFinding {
  name: string;
  version: string;
  upstreamTool: string;
  /** What differs: the description, the input schema, the tool is gone, or (seen in a call) its output broke the schema. */
  fields: Array<'description' | 'inputSchema' | 'missing' | 'outputSchema'>;
}

export interface DriftVerdict {
  drifted: DriftFinding[];
  /** `name@version` keys the upstream serves exactly as published right now. */
  agreeing: string[];
  /** Versions the upstream has never served as published (a publishing mistake, not drift). */
  neverAgreed: DriftFinding[];
}

export const versionKey = (name: string, version: string): string => `${name}@${version}`;

function differences(description: string, inputSchema: unknown, tool: AdvertisedTool | undefined): DriftFinding['fields'] {
  if (!tool) return ['missing'];
  const fields: DriftFinding['fields'] = [];
  if ((tool.description ?? '') !== description) fields.push('description');
  // Canonical text: the same schema with its keys in another order is the same contract.
  if (stableStringify(tool.inputSchema) !== stableStringify(inputSchema)) fields.push('inputSchema');
  return fields;
}

/**
 * Compares an upstream's own tools/list with the versions the catalog routes to it. A version
 * has drifted when the upstream once served it exactly as published and now serves something
 * else under the same version. Retired and already quarantined versions are not checked.
 */
export function detectDrift(server: string, entries: Iterable<CatalogEntry>, tools: AdvertisedTool[], agreedBefore: ReadonlySet<string>): DriftVerdict {
  const byName = new Map(tools.map((t) => [t.name, t]));
  const verdict: DriftVerdict = { drifted: [], agreeing: [], neverAgreed: [] };
  for (const entry of entries) {
    if (entry.upstream.server !== server) continue;
    for (const v of entry.versions) {
      if (v.quarantined || v.status === 'retired') continue;
      const key = versionKey(entry.name, v.version);
      const fields = differences(v.spec.description, v.spec.inputSchema, byName.get(v.spec.upstream.tool));
      const finding = { name: entry.name, version: v.version, upstreamTool: v.spec.upstream.tool, fields };
      if (fields.length === 0) verdict.agreeing.push(key);
      else if (agreedBefore.has(key)) verdict.drifted.push(finding);
      else verdict.neverAgreed.push(finding);
    }
  }
  return verdict;
}
