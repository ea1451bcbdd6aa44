import type { EventEnvelope } from '@estate/events';

/** One row of registry.events as the driver returns it: the shape every reader of the table shares. */
export interface EventRow {
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

/** The columns only readers of the whole log select: store-wide position (bigint, as text), writing transaction, trace. */
export interface LoggedEventRow extends EventRow {
  position: string;
  tx_id: string;
  traceparent: string | null;
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
