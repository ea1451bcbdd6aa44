import type { Pool } from 'pg';
import type { DataSource } from 'typeorm';
import type { EventEnvelope } from '@estate/events';
import { currentTraceparent, pgPool, REGISTRY_EVENT_MAX_BYTES, withCorrelation, withSpan } from '@estate/platform';
import { RegistryEventEntity } from './event.entity';
import { AppendBatcher, type PendingAppend } from './append.batcher';
import { measuredEvent } from './event.message';
import { ConcurrencyConflict, EventTooLarge, readDecideAppend, type AppendMeta, type EventStore, type NewEvent, type StreamUpdate } from './event-store.port';
import { rowToEnvelope, type EventRow } from './event.row';

// The relay reads rows through this module; the row shape itself lives in event.row.ts.

/** Signals the relay that something was appended; it also polls, so a lost signal only costs latency. */
export const APPEND_CHANNEL = 'estate_registry_appended';

/*
 * Raw SQL on the command path, on purpose: TypeORM cannot name a statement. Named statements:
 * PostgreSQL parses and plans each once per connection, not once per publish. The insert takes
 * every event of every decision in a batch as arrays, so one statement (one round trip, one
 * transaction) appends them all and signals the relay, whatever their number.
 */
const READ_STREAM = {
  name: 'registry-read-stream',
  text: `SELECT id, stream_id, stream_version, type, version, data, actor, correlation_id, occurred_at
           FROM registry.events WHERE stream_id = $1 AND stream_version >= $2 ORDER BY stream_version`,
};
/*
 * Appends of several writers at once (AppendBatcher), each at most once per stream: a row is
 * inserted only if its stream holds nothing at or past the version its writer read, so each
 * writer's version check is its own and a conflict refuses that writer alone. A writer racing in
 * from another connection trips the unique index instead, failing the whole statement; the batch
 * is then written writer by writer. Returns the streams appended to; one signal for the relay.
 */
const APPEND_BATCH = {
  name: 'registry-append-batch',
  text: `WITH e AS (
           SELECT * FROM unnest($1::uuid[], $2::text[], $3::int[], $4::text[], $5::int[], $6::text[], $7::text[], $8::text[], $9::timestamptz[], $10::text[], $11::int[])
                    WITH ORDINALITY AS e(id, stream_id, stream_version, type, version, data, actor, correlation_id, occurred_at, traceparent, expected, ord)),
         inserted AS (
           INSERT INTO registry.events (id, stream_id, stream_version, type, version, data, actor, correlation_id, occurred_at, traceparent)
           SELECT e.id, e.stream_id, e.stream_version, e.type, e.version, e.data::json, e.actor, e.correlation_id, e.occurred_at, e.traceparent
             FROM e
            WHERE NOT EXISTS (SELECT 1 FROM registry.events x WHERE x.stream_id = e.stream_id AND x.stream_version >= e.expected)
            ORDER BY e.ord
           RETURNING stream_id)
         SELECT stream_id, pg_notify($12, '') FROM inserted GROUP BY stream_id`,
};

export class PostgresEventStore implements EventStore {
  private readonly batcher = new AppendBatcher((batch) => this.writeBatch(batch));

  constructor(
    private readonly db: DataSource,
    private readonly ids: () => string,
    private readonly clock: () => Date,
    private readonly maxEventBytes = REGISTRY_EVENT_MAX_BYTES,
  ) {}

  async readStream(streamId: string, fromVersion = 0): Promise<EventEnvelope[]> {
    const { rows } = await this.pool().query<EventRow>({ ...READ_STREAM, values: [streamId, fromVersion] });
    return rows.map(rowToEnvelope);
  }

  async append(streamId: string, expectedVersion: number, events: NewEvent[], meta: AppendMeta): Promise<EventEnvelope[]> {
    if (events.length === 0) return [];
    const attributes = { 'estate.stream': streamId, 'estate.events': events.map((e) => e.type).join(','), 'estate.correlation_id': meta.correlationId };
    return withCorrelation(meta.correlationId, () => withSpan('registry append', attributes, async () => {
      const { stamped, data, bytes } = this.stamp(streamId, expectedVersion, events, meta);
      // One statement per batch, so one transaction: the row's tx_id is taken there, after the
      // stream was read, which the relay's visibility rule depends on.
      const landed = await this.batcher.append({ streamId, expectedVersion, stamped, data, traceparent: currentTraceparent() ?? null, bytes });
      if (!landed) throw new ConcurrencyConflict(streamId, expectedVersion);
      return stamped;
    }));
  }

  /** One batch in one statement; the streams whose appends landed. */
  private async writeBatch(batch: PendingAppend[]): Promise<Set<string>> {
    const rows = batch.flatMap((a) => a.stamped.map((e, i) => ({ e, a, data: a.data[i] })));
    try {
      const { rows: landed } = await this.pool().query<{ stream_id: string }>({
        ...APPEND_BATCH,
        values: [
          rows.map((r) => r.e.id), rows.map((r) => r.a.streamId), rows.map((r) => r.e.position), rows.map((r) => r.e.type), rows.map((r) => r.e.version),
          rows.map((r) => r.data), rows.map((r) => r.e.actor), rows.map((r) => r.e.correlationId), rows.map((r) => r.e.occurredAt),
          rows.map((r) => r.a.traceparent), rows.map((r) => r.a.expectedVersion), APPEND_CHANNEL,
        ],
      });
      return new Set(landed.map((r) => r.stream_id));
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      if (batch.length === 1) return new Set();
      // Another connection's writer got in: each append alone, so only the one it beat is refused.
      const alone = await Promise.all(batch.map((a) => this.writeBatch([a])));
      return new Set(alone.flatMap((s) => [...s]));
    }
  }

  /*
   * Optimistic, on purpose: the stream is read (from what the caller has folded already), the
   * decider runs with no connection held, and the append is one statement that fails on a taken
   * stream version. Holding a transaction open
   * across the decider (parsing, linting and classifying a contract of up to 2 MB) kept a pooled
   * connection idle per publish in flight; eight large publishes at once starved the pool into
   * 503s. At most two round trips per command (one when the caller knows the stream), no BEGIN or
   * COMMIT, and the version check is the same.
   */
  update<T>(streamId: string, fromVersion: number, decide: (newer: EventEnvelope[]) => StreamUpdate<T>, meta: AppendMeta, known?: boolean): Promise<T> {
    return readDecideAppend(this, streamId, fromVersion, decide, meta, known);
  }

  async listStreams(prefix: string): Promise<string[]> {
    const rows = await this.db.manager.createQueryBuilder(RegistryEventEntity, 'e')
      .select('DISTINCT e.streamId', 'stream_id')
      .where('e.streamId LIKE :prefix', { prefix: `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%` })
      .orderBy('stream_id')
      .getRawMany<{ stream_id: string }>();
    return rows.map((r) => r.stream_id);
  }

  private pool(): Pool {
    return pgPool(this.db);
  }

  /** Id, position and time as the relay will send them; an event too large for the log is refused before it is stored. */
  private stamp(streamId: string, expectedVersion: number, events: NewEvent[], meta: AppendMeta): { stamped: EventEnvelope[]; data: string[]; bytes: number } {
    const occurredAt = this.clock().toISOString();
    const stamped = events.map((event, index): EventEnvelope => ({
      id: this.ids(), type: event.type, version: event.version, stream: streamId, position: expectedVersion + index,
      occurredAt, actor: meta.actor, correlationId: meta.correlationId, data: event.data,
    }));
    let total = 0;
    const data: string[] = [];
    for (const e of stamped) {
      const measured = measuredEvent(e);
      if (measured.bytes > this.maxEventBytes) throw new EventTooLarge(streamId, measured.bytes, this.maxEventBytes);
      total += measured.bytes;
      data.push(measured.data);
    }
    return { stamped, data, bytes: total };
  }
}

function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; driverError?: { code?: string } };
  return e.code === '23505' || e.driverError?.code === '23505';
}
