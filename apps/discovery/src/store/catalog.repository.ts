import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { escapeUnstorable } from '@estate/contracts';
import type { CatalogEntry, CatalogVersion, ServerRegisteredData } from '@estate/events';
import { inTransaction, type StoredPosition } from '@estate/platform';
import { CatalogCheckpointEntity } from './catalog-checkpoint.entity';
import { CatalogDeadLetterEntity } from './catalog-dead-letter.entity';
import { CatalogServerEntity } from './catalog-server.entity';
import type { CatalogToolHead } from './catalog-tool.entity';
import { assemble, entryOf, readAllHeads, readHeads, readVersions, writeTools, type BatchCheckpoint, type ToolWrite } from './catalog-tool.rows';
import { StreamPositionEntity } from './stream-position.entity';

const PREFETCH = `SELECT
  (SELECT coalesce(json_agg(json_build_array(s.stream_id, s.position)), '[]')
     FROM (SELECT stream_id, position FROM discovery.streams WHERE stream_id = ANY($1) ORDER BY stream_id FOR UPDATE) s) AS streams,
  (SELECT coalesce(json_agg(t.head), '[]') FROM (SELECT head FROM discovery.tools WHERE name = ANY($2) ORDER BY name FOR UPDATE) t) AS heads,
  (SELECT coalesce(json_agg(json_build_array(v.name, v.data)), '[]') FROM discovery.servers v WHERE v.name = ANY($3)) AS servers`;

/** A batch's rows read up front: positions by stream, locked heads, servers by name (each only where it exists). */
export interface Prefetched {
  positions: Map<string, number>;
  heads: CatalogToolHead[];
  servers: Map<string, ServerRegisteredData>;
}

/** A query runner in the projection's transaction: its manager reads and locks rows in that transaction. */
type Runner = Pick<QueryRunner, 'manager'>;

/** The discovery schema: catalog rows, per-stream positions and Kafka checkpoints. */
export class CatalogRepository {
  constructor(readonly db: DataSource) {}

  async streamPosition(runner: Runner, streamId: string): Promise<number | undefined> {
    const rows = (await runner.manager.query(`SELECT position FROM discovery.streams WHERE stream_id = $1 FOR UPDATE`, [streamId])) as Array<{ position: number }>;
    return rows[0]?.position;
  }

  /** Positions of these streams (those with one), locked like streamPosition's. */
  async streamPositions(runner: Runner, streamIds: string[]): Promise<Map<string, number>> {
    if (streamIds.length === 0) return new Map();
    const rows = (await runner.manager.query(
      `SELECT stream_id, position FROM discovery.streams WHERE stream_id = ANY($1) ORDER BY stream_id FOR UPDATE`, [streamIds],
    )) as Array<{ stream_id: string; position: number }>;
    return new Map(rows.map((r) => [r.stream_id, r.position]));
  }

  /**
   * What a batch reads up front, in one statement (one round trip instead of three): the streams'
   * positions and the tools' heads, locked in that order as the one-by-one path locks them, and
   * the servers the batch's publishes name.
   */
  async prefetch(runner: Runner, named: { streams: string[]; tools: string[]; servers: string[] }): Promise<Prefetched> {
    const [row] = (await runner.manager.query(PREFETCH, [named.streams, named.tools, named.servers])) as Array<{
      streams: Array<[string, number]>; heads: CatalogToolHead[]; servers: Array<[string, ServerRegisteredData]>;
    }>;
    return { positions: new Map(row.streams), heads: row.heads, servers: new Map(row.servers) };
  }

  async setStreamPosition(runner: Runner, streamId: string, position: number): Promise<void> {
    await this.setStreamPositions(runner, new Map([[streamId, position]]));
  }

  /** Every position a batch moved, in one statement: a batch touches a stream per tool it publishes. */
  async setStreamPositions(runner: Runner, positions: ReadonlyMap<string, number>): Promise<void> {
    if (positions.size === 0) return;
    await runner.manager.query(
      `INSERT INTO discovery.streams (stream_id, position) SELECT p->>0, (p->>1)::integer FROM json_array_elements($1::json) AS p
       ON CONFLICT (stream_id) DO UPDATE SET position = excluded.position`,
      [JSON.stringify([...positions])],
    );
  }

  /** Raw SQL: once per batch, and TypeORM's upsert built the statement anew each time. */
  async setCheckpoint(runner: Runner, topic: string, partition: number, position: StoredPosition): Promise<void> {
    await runner.manager.query(
      `INSERT INTO discovery.checkpoints (topic, partition, next_offset, last_event_id) VALUES ($1, $2, $3, $4)
       ON CONFLICT (topic, partition) DO UPDATE SET next_offset = excluded.next_offset, last_event_id = excluded.last_event_id`,
      [topic, partition, position.next, position.lastEventId],
    );
  }

  async checkpoint(topic: string, partition: number): Promise<StoredPosition | undefined> {
    const row = await this.db.manager.findOneBy(CatalogCheckpointEntity, { topic, partition });
    return row ? { next: row.nextOffset, lastEventId: row.lastEventId } : undefined;
  }

  async checkpoints(topic: string): Promise<Map<number, string>> {
    const rows = await this.db.manager.find(CatalogCheckpointEntity, { where: { topic }, select: { partition: true, nextOffset: true } });
    return new Map(rows.map((r) => [r.partition, r.nextOffset]));
  }

  /** How many registry events the projection has applied: stream positions start at 0 and have no gaps. */
  async appliedEvents(): Promise<number> {
    const row = await this.db.manager.createQueryBuilder(StreamPositionEntity, 's')
      .select('coalesce(sum(s.position + 1), 0)', 'applied')
      .getRawOne<{ applied: string }>();
    return Number(row?.applied ?? 0);
  }

  async server(runner: Runner, name: string): Promise<ServerRegisteredData | undefined> {
    const row = await runner.manager.findOneBy(CatalogServerEntity, { name });
    return row?.data;
  }

  async upsertServer(runner: Runner, server: ServerRegisteredData): Promise<void> {
    await runner.manager.upsert(CatalogServerEntity, { name: server.name, data: server }, ['name']);
  }

  /** The tool's entry, its row locked for the transaction. */
  async tool(runner: Runner, name: string): Promise<CatalogEntry | undefined> {
    const [head] = await readHeads(runner.manager, { names: [name] }, true);
    return head && entryOf(head, (await readVersions(runner.manager, [name])).get(name) ?? []);
  }

  /** Heads only, rows locked: the caller may hold the versions already (see ToolVersionsCache). */
  async lockHeads(runner: Runner, where: { names: string[] } | { server: string }): Promise<CatalogToolHead[]> {
    return readHeads(runner.manager, where, true);
  }

  async versionsOf(runner: Runner, names: string[]): Promise<Map<string, CatalogVersion[]>> {
    return names.length === 0 ? new Map() : readVersions(runner.manager, names);
  }

  async toolsOfServer(runner: Runner, server: string): Promise<CatalogEntry[]> {
    const heads = await readHeads(runner.manager, { server }, true);
    return assemble(heads, await this.versionsOf(runner, heads.map((h) => h.name)));
  }

  /** Stores the entry whole: its head and every version. */
  async upsertTool(runner: Runner, entry: CatalogEntry): Promise<void> {
    await writeTools(runner.manager, [{ entry, versions: entry.versions }]);
  }

  /** Stores these heads and, of each tool, only the versions given: a publish writes one version row, not the entry. */
  async writeTools(runner: Runner, writes: readonly ToolWrite[], positions?: ReadonlyMap<string, number>, checkpoint?: BatchCheckpoint): Promise<void> {
    await writeTools(runner.manager, writes, positions, checkpoint);
  }

  async toolsNamed(names: string[]): Promise<CatalogEntry[]> {
    if (names.length === 0) return [];
    const heads = await readHeads(this.db.manager, { names });
    return assemble(heads, await readVersions(this.db.manager, names));
  }

  /** Every entry, by name. Callers that need one snapshot of heads and versions pass a REPEATABLE READ manager. */
  async allTools(manager: EntityManager = this.db.manager): Promise<CatalogEntry[]> {
    if (manager === this.db.manager) return inTransaction(this.db, (runner) => this.allTools(runner.manager), 'REPEATABLE READ');
    return assemble(await readAllHeads(manager), await readVersions(manager));
  }

  async allServers(manager: EntityManager = this.db.manager): Promise<ServerRegisteredData[]> {
    const rows = await manager.find(CatalogServerEntity, { order: { name: 'ASC' } });
    return rows.map((r) => r.data);
  }

  /**
   * The whole catalog as of one moment. Read table by table, a batch that committed between two
   * reads showed the tools of a server registered in that batch, but not the server; one
   * REPEATABLE READ transaction reads every table from the same snapshot.
   */
  async catalog(): Promise<{ servers: ServerRegisteredData[]; tools: CatalogEntry[]; deadLetters: number }> {
    return inTransaction(this.db, async ({ manager }) => ({
      servers: await this.allServers(manager),
      tools: await this.allTools(manager),
      deadLetters: await manager.count(CatalogDeadLetterEntity),
    }), 'REPEATABLE READ');
  }

  /** Keeps a message the projection cannot apply, once per position; bytes as received. */
  async storeDeadLetter(runner: Runner, letter: { topic: string; partition: number; offset: string; key: string | null; value: string | null; reason: string }): Promise<void> {
    const bytes = (text: string | null): Buffer | null => (text === null ? null : Buffer.from(text, 'utf8'));
    // The position is the only thing that can conflict (the id is a sequence): a second letter for it is dropped.
    await runner.manager.createQueryBuilder().insert().into(CatalogDeadLetterEntity)
      .values({ topic: letter.topic, partition: letter.partition, offset: letter.offset, key: bytes(letter.key), value: bytes(letter.value), reason: escapeUnstorable(letter.reason) })
      .orIgnore()
      .execute();
  }

  async deadLetterCount(): Promise<number> {
    return this.db.manager.count(CatalogDeadLetterEntity);
  }

  /**
   * Replace the whole projection in one transaction (the swap step of a rebuild), in multi-row
   * inserts: a row per round trip made the swap of a large catalog cost more than its fold.
   */
  async replaceAll(runner: Runner, servers: ServerRegisteredData[], tools: CatalogEntry[], streams: Map<string, number>): Promise<void> {
    // DELETE, not TRUNCATE: readers keep reading the old rows until the swap commits. Plain SQL:
    // each insert takes a thousand rows as one JSON array that PostgreSQL splits, which TypeORM
    // cannot say. (Text arrays were escaped character by character by the driver: for a catalog
    // of large entries that cost more than the rest of the swap.) The json columns keep each
    // element's text as written, key order included.
    await runner.manager.query(`DELETE FROM discovery.tool_versions`);
    await runner.manager.query(`DELETE FROM discovery.tools`);
    await runner.manager.query(`DELETE FROM discovery.servers`);
    await runner.manager.query(`DELETE FROM discovery.streams`);
    for (const part of chunks(servers)) {
      await runner.manager.query(`INSERT INTO discovery.servers (name, data) SELECT d->>'name', d FROM json_array_elements($1::json) AS d`, [JSON.stringify(part)]);
    }
    for (const part of chunksOfVersions(tools)) await writeTools(runner.manager, part);
    for (const part of chunks([...streams])) {
      await runner.manager.query(`INSERT INTO discovery.streams (stream_id, position) SELECT p->>0, (p->>1)::integer FROM json_array_elements($1::json) AS p`, [JSON.stringify(part)]);
    }
  }
}

/** Rows per insert of the swap: large enough to amortize a round trip, small enough to bound one statement's parameters. */
const SWAP_BATCH = 1000;

/** Whole tools per write, about SWAP_BATCH version rows each: a tool's versions are a row each now. */
function chunksOfVersions(tools: CatalogEntry[]): ToolWrite[][] {
  const parts: ToolWrite[][] = [];
  let part: ToolWrite[] = [];
  let rows = 0;
  for (const entry of tools) {
    part.push({ entry, versions: entry.versions });
    rows += entry.versions.length + 1;
    if (rows >= SWAP_BATCH) {
      parts.push(part);
      part = [];
      rows = 0;
    }
  }
  if (part.length > 0) parts.push(part);
  return parts;
}

function chunks<T>(rows: T[]): T[][] {
  const parts: T[][] = [];
  for (let i = 0; i < rows.length; i += SWAP_BATCH) parts.push(rows.slice(i, i + SWAP_BATCH));
  return parts;
}
