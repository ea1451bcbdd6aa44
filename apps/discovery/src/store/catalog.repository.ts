import type { DataSource, QueryRunner } from 'typeorm';
import { escapeUnstorable } from '@estate/contracts';
import type { CatalogEntry, ServerRegisteredData } from '@estate/events';
import type { StoredPosition } from '@estate/platform';

type Runner = Pick<QueryRunner, 'query'>;

/** The discovery schema: catalog rows, per-stream positions and Kafka checkpoints. */
export class CatalogRepository {
  constructor(readonly db: DataSource) {}

  async streamPosition(runner: Runner, streamId: string): Promise<number | undefined> {
    const rows: Array<{ position: number }> = await runner.query(
      `SELECT position FROM discovery.streams WHERE stream_id = $1 FOR UPDATE`, [streamId],
    );
    return rows[0]?.position;
  }

  async setStreamPosition(runner: Runner, streamId: string, position: number): Promise<void> {
    await runner.query(
      `INSERT INTO discovery.streams (stream_id, position) VALUES ($1, $2)
       ON CONFLICT (stream_id) DO UPDATE SET position = EXCLUDED.position`, [streamId, position],
    );
  }

  async setCheckpoint(runner: Runner, topic: string, partition: number, position: StoredPosition): Promise<void> {
    await runner.query(
      `INSERT INTO discovery.checkpoints (topic, partition, next_offset, last_event_id) VALUES ($1, $2, $3, $4)
       ON CONFLICT (topic, partition) DO UPDATE SET next_offset = EXCLUDED.next_offset, last_event_id = EXCLUDED.last_event_id`,
      [topic, partition, position.next, position.lastEventId],
    );
  }

  async checkpoint(topic: string, partition: number): Promise<StoredPosition | undefined> {
    const rows: Array<{ next_offset: string; last_event_id: string | null }> = await this.db.query(
      `SELECT next_offset, last_event_id FROM discovery.checkpoints WHERE topic = $1 AND partition = $2`, [topic, partition],
    );
    return rows[0] && { next: rows[0].next_offset, lastEventId: rows[0].last_event_id };
  }

  async checkpoints(topic: string): Promise<Map<number, string>> {
    const rows: Array<{ partition: number; next_offset: string }> = await this.db.query(
      `SELECT partition, next_offset FROM discovery.checkpoints WHERE topic = $1`, [topic],
    );
    return new Map(rows.map((r) => [r.partition, r.next_offset]));
  }

  /** How many registry events the projection has applied: stream positions start at 0 and have no gaps. */
  async appliedEvents(): Promise<number> {
    const [row]: Array<{ applied: string }> = await this.db.query(`SELECT coalesce(sum(position + 1), 0) AS applied FROM discovery.streams`);
    return Number(row.applied);
  }

  async server(runner: Runner, name: string): Promise<ServerRegisteredData | undefined> {
    const rows: Array<{ data: ServerRegisteredData }> = await runner.query(`SELECT data FROM discovery.servers WHERE name = $1`, [name]);
    return rows[0]?.data;
  }

  async upsertServer(runner: Runner, server: ServerRegisteredData): Promise<void> {
    await runner.query(
      `INSERT INTO discovery.servers (name, data) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET data = EXCLUDED.data`,
      [server.name, JSON.stringify(server)],
    );
  }

  async tool(runner: Runner, name: string): Promise<CatalogEntry | undefined> {
    const rows: Array<{ entry: CatalogEntry }> = await runner.query(`SELECT entry FROM discovery.tools WHERE name = $1 FOR UPDATE`, [name]);
    return rows[0]?.entry;
  }

  async toolsOfServer(runner: Runner, server: string): Promise<CatalogEntry[]> {
    const rows: Array<{ entry: CatalogEntry }> = await runner.query(`SELECT entry FROM discovery.tools WHERE server = $1 FOR UPDATE`, [server]);
    return rows.map((r) => r.entry);
  }

  async upsertTool(runner: Runner, entry: CatalogEntry): Promise<void> {
    await runner.query(
      `INSERT INTO discovery.tools (name, server, entry) VALUES ($1, $2, $3)
       ON CONFLICT (name) DO UPDATE SET server = EXCLUDED.server, entry = EXCLUDED.entry`,
      [entry.name, entry.upstream.server, JSON.stringify(entry)],
    );
  }

  async toolsNamed(names: string[]): Promise<CatalogEntry[]> {
    const rows: Array<{ entry: CatalogEntry }> = await this.db.query(`SELECT entry FROM discovery.tools WHERE name = ANY($1)`, [names]);
    return rows.map((r) => r.entry);
  }

  async allTools(): Promise<CatalogEntry[]> {
    const rows: Array<{ entry: CatalogEntry }> = await this.db.query(`SELECT entry FROM discovery.tools ORDER BY name`);
    return rows.map((r) => r.entry);
  }

  async allServers(): Promise<ServerRegisteredData[]> {
    const rows: Array<{ data: ServerRegisteredData }> = await this.db.query(`SELECT data FROM discovery.servers ORDER BY name`);
    return rows.map((r) => r.data);
  }

  /** Keeps a message the projection cannot apply, once per position; bytes as received. */
  async storeDeadLetter(runner: Runner, letter: { topic: string; partition: number; offset: string; key: string | null; value: string | null; reason: string }): Promise<void> {
    const bytes = (text: string | null): Buffer | null => (text === null ? null : Buffer.from(text, 'utf8'));
    await runner.query(
      `INSERT INTO discovery.dead_letters (topic, partition, "offset", key, value, reason) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT ON CONSTRAINT dead_letters_position_unique DO NOTHING`,
      [letter.topic, letter.partition, letter.offset, bytes(letter.key), bytes(letter.value), escapeUnstorable(letter.reason)],
    );
  }

  async deadLetterCount(): Promise<number> {
    const [row]: Array<{ count: string }> = await this.db.query(`SELECT count(*) AS count FROM discovery.dead_letters`);
    return Number(row.count);
  }

  /**
   * Replace the whole projection in one transaction (the swap step of a rebuild), in multi-row
   * inserts: a row per round trip made the swap of a large catalog cost more than its fold.
   */
  async replaceAll(runner: Runner, servers: ServerRegisteredData[], tools: CatalogEntry[], streams: Map<string, number>): Promise<void> {
    await runner.query(`DELETE FROM discovery.tools`);
    await runner.query(`DELETE FROM discovery.servers`);
    await runner.query(`DELETE FROM discovery.streams`);
    for (const part of chunks(servers)) {
      await runner.query(`INSERT INTO discovery.servers (name, data) SELECT n, d::json FROM unnest($1::text[], $2::text[]) AS r(n, d)`,
        [part.map((s) => s.name), part.map((s) => JSON.stringify(s))]);
    }
    for (const part of chunks(tools)) {
      await runner.query(`INSERT INTO discovery.tools (name, server, entry) SELECT n, s, e::json FROM unnest($1::text[], $2::text[], $3::text[]) AS r(n, s, e)`,
        [part.map((t) => t.name), part.map((t) => t.upstream.server), part.map((t) => JSON.stringify(t))]);
    }
    for (const part of chunks([...streams])) {
      await runner.query(`INSERT INTO discovery.streams (stream_id, position) SELECT * FROM unnest($1::text[], $2::integer[])`,
        [part.map(([stream]) => stream), part.map(([, position]) => position)]);
    }
  }
}

/** Rows per insert of the swap: large enough to amortize a round trip, small enough to bound one statement's parameters. */
const SWAP_BATCH = 1000;

function chunks<T>(rows: T[]): T[][] {
  const parts: T[][] = [];
  for (let i = 0; i < rows.length; i += SWAP_BATCH) parts.push(rows.slice(i, i + SWAP_BATCH));
  return parts;
}
