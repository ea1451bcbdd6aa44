import type { EntityManager } from 'typeorm';
import { catalogVersionText, parseCatalogVersion, sortCatalogVersions } from '@estate/catalog';
import type { CatalogEntry, CatalogVersion } from '@estate/events';
import type { CatalogToolHead } from './catalog-tool.entity';

/**
 * Reads and writes of catalog entries stored as a head row (discovery.tools) and a row per
 * version (discovery.tool_versions). Plain SQL: a write sends every changed row of a batch as one
 * JSON array that PostgreSQL splits, one statement per table, and a read keeps each version's
 * stored text so that publishing it again does not serialize it again.
 */

/** A tool's entry to store and, of its versions, those to write (new or changed since read). */
export interface ToolWrite {
  entry: CatalogEntry;
  versions: readonly CatalogVersion[];
}

type Manager = Pick<EntityManager, 'query'>;

export function headOf(entry: CatalogEntry): CatalogToolHead {
  return { name: entry.name, upstream: entry.upstream, position: entry.position };
}

/** The entry's fields in the order the fold writes them, which is the order they are published in. */
export function entryOf(head: CatalogToolHead, versions: CatalogVersion[]): CatalogEntry {
  return { name: head.name, upstream: head.upstream, versions, position: head.position };
}

/** Head rows, locked for the transaction when `lock`: the apply step is about to change them. */
export async function readHeads(manager: Manager, where: { names?: string[]; server?: string }, lock = false): Promise<CatalogToolHead[]> {
  const [condition, parameter] = where.server !== undefined ? ['server = $1', where.server] : ['name = ANY($1)', where.names ?? []];
  const rows = (await manager.query(
    `SELECT head FROM discovery.tools WHERE ${condition} ORDER BY name${lock ? ' FOR UPDATE' : ''}`, [parameter],
  )) as Array<{ head: CatalogToolHead }>;
  return rows.map((r) => r.head);
}

export async function readAllHeads(manager: Manager): Promise<CatalogToolHead[]> {
  const rows = (await manager.query(`SELECT head FROM discovery.tools ORDER BY name`)) as Array<{ head: CatalogToolHead }>;
  return rows.map((r) => r.head);
}

/** The versions of these tools (every tool when `names` is undefined), each list in semver order. */
export async function readVersions(manager: Manager, names?: string[]): Promise<Map<string, CatalogVersion[]>> {
  // As text: the driver would parse the json column, and the text is what a publish sends again.
  const rows = (names === undefined
    ? await manager.query(`SELECT tool, body::text AS body FROM discovery.tool_versions`)
    : await manager.query(`SELECT tool, body::text AS body FROM discovery.tool_versions WHERE tool = ANY($1)`, [names])) as Array<{ tool: string; body: string }>;
  const byTool = new Map<string, CatalogVersion[]>();
  for (const row of rows) {
    const list = byTool.get(row.tool);
    if (list) list.push(parseCatalogVersion(row.body));
    else byTool.set(row.tool, [parseCatalogVersion(row.body)]);
  }
  for (const [tool, list] of byTool) byTool.set(tool, sortCatalogVersions(list));
  return byTool;
}

export function assemble(heads: CatalogToolHead[], versions: Map<string, CatalogVersion[]>): CatalogEntry[] {
  return heads.map((head) => entryOf(head, versions.get(head.name) ?? []));
}

/*
 * One statement for a batch's writes, whatever the number of tools: heads, versions and (when
 * given) the stream positions the batch moved, each a JSON array PostgreSQL splits, and the
 * batch's checkpoint on the registry log when given ($4 null: none). Data-modifying CTEs on four
 * tables run as one; an empty array writes nothing.
 */
const WRITE_TOOLS = `WITH heads AS (
    INSERT INTO discovery.tools (name, server, head) SELECT h->>'name', h->'upstream'->>'server', h FROM json_array_elements($1::json) AS h
    ON CONFLICT (name) DO UPDATE SET server = excluded.server, head = excluded.head),
  versions AS (
    INSERT INTO discovery.tool_versions (tool, version, body) SELECT r->>0, r->1->>'version', r->1 FROM json_array_elements($2::json) AS r
    ON CONFLICT (tool, version) DO UPDATE SET body = excluded.body),
  streams AS (
    INSERT INTO discovery.streams (stream_id, position) SELECT p->>0, (p->>1)::integer FROM json_array_elements($3::json) AS p
    ON CONFLICT (stream_id) DO UPDATE SET position = excluded.position),
  checkpoint AS (
    INSERT INTO discovery.checkpoints (topic, partition, next_offset, last_event_id) SELECT $4::text, $5::integer, $6::bigint, $7::text WHERE $4::text IS NOT NULL
    ON CONFLICT (topic, partition) DO UPDATE SET next_offset = excluded.next_offset, last_event_id = excluded.last_event_id)
  SELECT 1`;

/** Where a batch leaves the registry log, written with its rows (the transport's position, BusContext.position). */
export interface BatchCheckpoint {
  topic: string;
  partition: number;
  next: string;
  lastEventId: string | null;
}

/** Upserts the heads and the given versions of these tools, the stream positions and the checkpoint given, in one statement. */
export async function writeTools(
  manager: Manager, writes: readonly ToolWrite[], positions: ReadonlyMap<string, number> = new Map(), checkpoint?: BatchCheckpoint,
): Promise<void> {
  if (writes.length === 0 && positions.size === 0 && checkpoint === undefined) return;
  const heads = writes.map((w) => JSON.stringify(headOf(w.entry)));
  const rows = writes.flatMap((w) => w.versions.map((v) => `[${JSON.stringify(w.entry.name)},${catalogVersionText(v)}]`));
  await manager.query(WRITE_TOOLS, [
    `[${heads.join(',')}]`, `[${rows.join(',')}]`, JSON.stringify([...positions]),
    checkpoint?.topic ?? null, checkpoint?.partition ?? null, checkpoint?.next ?? null, checkpoint?.lastEventId ?? null,
  ]);
}
