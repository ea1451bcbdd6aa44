/**
 * The envelope every estate event travels in, on Kafka and in the event store.
 * `position` is the event's version within its stream; `id` is what consumers dedupe on.
 */
export interface EventEnvelope<TType extends string = string, TData = unknown> {
  id: string;
  type: TType;
  version: number;
  stream: string;
  position: number;
  occurredAt: string;
  actor: string;
  correlationId: string;
  data: TData;
}

export const ENVELOPE_SCHEMA = {
  type: 'object',
  required: ['id', 'type', 'version', 'stream', 'position', 'occurredAt', 'actor', 'correlationId', 'data'],
  properties: {
    id: { type: 'string', minLength: 1 },
    type: { type: 'string', minLength: 1 },
    version: { type: 'integer', minimum: 1 },
    stream: { type: 'string', minLength: 1 },
    position: { type: 'integer', minimum: 0 },
    occurredAt: { type: 'string', format: 'date-time' },
    actor: { type: 'string' },
    correlationId: { type: 'string' },
    data: { type: 'object' },
  },
  additionalProperties: false,
} as const;
