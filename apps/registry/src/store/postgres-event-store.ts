import type { Pool } from 'pg';
import type { DataSource } from 'typeorm';
import type { EventEnvelope } from '@estate/events';
import { currentTraceparent, REGISTRY_EVENT_MAX_BYTES, withCorrelation, withSpan } from '@estate/platform';
import { RegistryEventEntity } from './event.entity';
import { eventMessageBytes } from './event.message';
import { ConcurrencyConflict, EventTooLarge, readDecideAppend, type AppendMeta, type EventStore, type NewEvent, type StreamUpdate } from './event-store.port';
import { rowToEnvelope, type EventRow } from './event.row';

// The relay reads rows through this module; the row shape itself lives in event.row.ts.

/** Signals the relay that something was appended; it also polls, so a lost signal only costs latency. */
export const APPEND_CHANNEL = 'estate_registry_appended';

/*
 * Raw SQL on the command path, on purpose: TypeORM cannot name a statement. Named statements:
 * PostgreSQL parses and plans each once per connection, not once per publish. The insert takes
 * every event of a decision as arrays, so one statement (one round trip, one transaction)
 * appends them all and signals the relay, whatever their number.
 */
const READ_STREAM = {
  name: 'registry-read-stream',
  text: `SELECT id, stream_id, stream_version, type, version, data, actor, correlation_id, occurred_at
           FROM registry.events WHERE stream_id = $1 AND stream_version >= $2 ORDER BY stream_version`,
};
const APPEND_EVENTS = {
  name: 'registry-append-events',
  text: `WITH inserted AS (
           INSERT INTO registry.events (id, stream_id, stream_version, type, version, data, actor, correlation_id, occurred_at, traceparent)
           SELECT e.id, $2, e.stream_version, e.type, e.version, e.data::json, $7, $8, $9, $10
             FROM unnest($1::uuid[], $3::int[], $4::text[], $5::int[], $6::text[]) AS e(id, stream_version, type, version, data)
            ORDER BY e.stream_version
           RETURNING 1)
         SELECT pg_notify($11, $2) FROM (SELECT 1 FROM inserted LIMIT 1) AS appended`,
};

export class PostgresEventStore implements EventStore {
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
      const stamped = this.stamp(streamId, expectedVersion, events, meta);
      try {
        // One statement, so one transaction: the row's tx_id is taken here, after the stream was
        // read, which the relay's visibility rule depends on.
        await this.pool().query({
          ...APPEND_EVENTS,
          values: [
            stamped.map((e) => e.id), streamId, stamped.map((e) => e.position), stamped.map((e) => e.type), stamped.map((e) => e.version),
            stamped.map((e) => JSON.stringify(e.data)), meta.actor, meta.correlationId, stamped[0].occurredAt, currentTraceparent() ?? null, APPEND_CHANNEL,
          ],
        });
      } catch (error) {
        if (isUniqueViolation(error)) throw new ConcurrencyConflict(streamId, expectedVersion);
        throw error;
      }
      return stamped;
    }));
  }

  /*
   * Optimistic, on purpose: the stream is read (from what the caller has folded already), the
   * decider runs with no connection held, and the append is one statement that fails on a taken
   * stream version. Holding a transaction open
   * across the decider (parsing, linting and classifying a contract of up to 2 MB) kept a pooled
   * connection idle per publish in flight; eight large publishes at once starved the pool into
   * 503s. Two round trips per command, no BEGIN or COMMIT, and the version check is the same.
   */
  update<T>(streamId: string, fromVersion: number, decide: (newer: EventEnvelope[]) => StreamUpdate<T>, meta: AppendMeta): Promise<T> {
    return readDecideAppend(this, streamId, fromVersion, decide, meta);
  }

  async listStreams(prefix: string): Promise<string[]> {
    const rows = await this.db.manager.createQueryBuilder(RegistryEventEntity, 'e')
      .select('DISTINCT e.streamId', 'stream_id')
      .where('e.streamId LIKE :prefix', { prefix: `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%` })
      .orderBy('stream_id')
      .getRawMany<{ stream_id: string }>();
    return rows.map((r) => r.stream_id);
  }

  /** pg's own pool under TypeORM: TypeORM's query() cannot name a statement. */
  private pool(): Pool {
    return (this.db.driver as unknown as { master: Pool }).master;
  }

  /** Id, position and time as the relay will send them; an event too large for the log is refused before it is stored. */
  private stamp(streamId: string, expectedVersion: number, events: NewEvent[], meta: AppendMeta): EventEnvelope[] {
    const occurredAt = this.clock().toISOString();
    const stamped = events.map((event, index): EventEnvelope => ({
      id: this.ids(), type: event.type, version: event.version, stream: streamId, position: expectedVersion + index,
      occurredAt, actor: meta.actor, correlationId: meta.correlationId, data: event.data,
    }));
    for (const e of stamped) {
      const bytes = eventMessageBytes(e);
      if (bytes > this.maxEventBytes) throw new EventTooLarge(streamId, bytes, this.maxEventBytes);
    }
    return stamped;
  }
}

function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; driverError?: { code?: string } };
  return e.code === '23505' || e.driverError?.code === '23505';
}
