import type { DataSource } from 'typeorm';
import type { EventEnvelope } from '@estate/events';
import { currentTraceparent, inTransaction, REGISTRY_EVENT_MAX_BYTES, withCorrelation, withSpan } from '@estate/platform';
import { eventMessageBytes } from './event.message';
import { ConcurrencyConflict, EventTooLarge, type AppendMeta, type EventStore, type NewEvent } from './event-store.port';

interface EventRow {
  id: string;
  stream_id: string;
  stream_version: number;
  type: string;
  version: number;
  data: unknown;
  actor: string;
  correlation_id: string;
  occurred_at: Date;
}

export function rowToEnvelope(row: EventRow): EventEnvelope {
  return {
    id: row.id,
    type: row.type,
    version: row.version,
    stream: row.stream_id,
    position: row.stream_version,
    occurredAt: row.occurred_at.toISOString(),
    actor: row.actor,
    correlationId: row.correlation_id,
    data: row.data,
  };
}

/** Signals the relay that something was appended; it also polls, so a lost signal only costs latency. */
export const APPEND_CHANNEL = 'estate_registry_appended';

export class PostgresEventStore implements EventStore {
  constructor(
    private readonly db: DataSource,
    private readonly ids: () => string,
    private readonly clock: () => Date,
    private readonly maxEventBytes = REGISTRY_EVENT_MAX_BYTES,
  ) {}

  async readStream(streamId: string): Promise<EventEnvelope[]> {
    const rows: EventRow[] = await this.db.query(
      `SELECT id, stream_id, stream_version, type, version, data, actor, correlation_id, occurred_at
         FROM registry.events WHERE stream_id = $1 ORDER BY stream_version`,
      [streamId],
    );
    return rows.map(rowToEnvelope);
  }

  async append(streamId: string, expectedVersion: number, events: NewEvent[], meta: AppendMeta): Promise<EventEnvelope[]> {
    if (events.length === 0) return [];
    const attributes = { 'estate.stream': streamId, 'estate.events': events.map((e) => e.type).join(','), 'estate.correlation_id': meta.correlationId };
    return withCorrelation(meta.correlationId, () => withSpan('registry append', attributes, () => this.appendNow(streamId, expectedVersion, events, meta)));
  }

  private async appendNow(streamId: string, expectedVersion: number, events: NewEvent[], meta: AppendMeta): Promise<EventEnvelope[]> {
    const traceparent = currentTraceparent() ?? null;
    const now = this.clock();
    const stamped = events.map((event, index) => ({
      id: this.ids(),
      type: event.type,
      version: event.version,
      stream: streamId,
      position: expectedVersion + index,
      occurredAt: now.toISOString(),
      actor: meta.actor,
      correlationId: meta.correlationId,
      data: event.data,
    }));
    for (const e of stamped) {
      const bytes = eventMessageBytes(e);
      if (bytes > this.maxEventBytes) throw new EventTooLarge(streamId, bytes, this.maxEventBytes);
    }
    try {
      await inTransaction(this.db, async (runner) => {
        for (const e of stamped) {
          // The row's tx_id comes from this INSERT, the transaction's first write: the relay's
          // visibility rule depends on it being taken after the stream state was read.
          await runner.query(
            `INSERT INTO registry.events (id, stream_id, stream_version, type, version, data, actor, correlation_id, occurred_at, traceparent)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
            [e.id, streamId, e.position, e.type, e.version, JSON.stringify(e.data), e.actor, e.correlationId, now, traceparent],
          );
        }
        await runner.query(`SELECT pg_notify($1, $2)`, [APPEND_CHANNEL, streamId]);
      });
      return stamped;
    } catch (error) {
      if (isUniqueViolation(error)) throw new ConcurrencyConflict(streamId, expectedVersion);
      throw error;
    }
  }

  async listStreams(prefix: string): Promise<string[]> {
    const rows: Array<{ stream_id: string }> = await this.db.query(
      `SELECT DISTINCT stream_id FROM registry.events WHERE stream_id LIKE $1 ORDER BY stream_id`,
      [`${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`],
    );
    return rows.map((r) => r.stream_id);
  }
}

function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; driverError?: { code?: string } };
  return e.code === '23505' || e.driverError?.code === '23505';
}
