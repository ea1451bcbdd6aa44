import { isDeepStrictEqual } from 'node:util';
import type { CatalogEntry, ServerRegisteredData } from '@estate/events';

export interface CatalogState {
  servers: ServerRegisteredData[];
  tools: CatalogEntry[];
}

/** Every way the served catalog differs from a fresh fold of the event store, one line each (empty: equal). */
export function diffCatalogs(served: CatalogState, folded: CatalogState): string[] {
  return [
    ...diffByName('server', served.servers, folded.servers),
    ...diffByName('tool', served.tools, folded.tools),
  ];
}

function diffByName<T extends { name: string }>(kind: string, served: T[], folded: T[]): string[] {
  const have = new Map(served.map((item) => [item.name, item]));
  const want = new Map(folded.map((item) => [item.name, item]));
  const lines: string[] = [];
  for (const [name, item] of want) {
    const found = have.get(name);
    if (found === undefined) lines.push(`${kind} ${name}: in the event store, missing from the catalog`);
    else if (!isDeepStrictEqual(normalize(found), normalize(item))) lines.push(`${kind} ${name}: differs from the event store (${describe(found, item)})`);
  }
  for (const name of have.keys()) if (!want.has(name)) lines.push(`${kind} ${name}: in the catalog, not in the event store`);
  return lines.sort();
}

/** Compared as JSON: what a reader of the catalog sees. */
function normalize(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}

function describe(served: object, folded: object): string {
  const keys = new Set([...Object.keys(served), ...Object.keys(folded)]);
  const differing = [...keys].filter((k) => !isDeepStrictEqual(normalize((served as Record<string, unknown>)[k] ?? null), normalize((folded as Record<string, unknown>)[k] ?? null)));
  return `fields: ${differing.join(', ')}`;
}
