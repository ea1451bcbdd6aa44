import type { EachBatchPayload, KafkaMessage } from 'kafkajs';
import { DEFAULT_MAX_BATCH, type BusMessage, type SubscribeOptions } from './event-bus.port';

/** A kafkajs record as the bus hands it on: text key and value, string headers. */
export function toBusMessage(topic: string, partition: number, message: KafkaMessage): BusMessage {
  const headers: Record<string, string> = {};
  const raw = message.headers;
  if (raw) {
    for (const k of Object.keys(raw)) {
      const v = raw[k];
      if (v !== undefined) headers[k] = String(v);
    }
  }
  return {
    topic,
    partition,
    offset: message.offset,
    key: message.key ? message.key.toString('utf8') : null,
    value: message.value ? message.value.toString('utf8') : null,
    headers,
  };
}

/**
 * kafkajs `eachBatch` for a subscriber's `handleBatch`: a fetched batch is handed on in slices of
 * at most `maxBatch`, each resolved (and, for group-kept positions, committed) only after its
 * handler succeeded. A failure throws: kafkajs fetches again from the last resolved offset, so the
 * failed slice comes again and nothing after it is skipped. Partitions still seeking to a stored
 * position, and batches a seek made stale, are dropped unresolved.
 */
export function eachBatchHandler(options: SubscribeOptions, seeking: ReadonlySet<number>) {
  const handleBatch = options.handleBatch as NonNullable<SubscribeOptions['handleBatch']>;
  const max = options.maxBatch ?? DEFAULT_MAX_BATCH;
  return async ({ batch, resolveOffset, heartbeat, isRunning, isStale, commitOffsetsIfNecessary }: EachBatchPayload): Promise<void> => {
    const { topic, partition } = batch;
    for (let i = 0; i < batch.messages.length; i += max) {
      if (!isRunning() || isStale() || seeking.has(partition)) return;
      const slice = batch.messages.slice(i, i + max).map((m) => toBusMessage(topic, partition, m));
      await handleBatch({ topic, partition, messages: slice });
      resolveOffset(slice[slice.length - 1].offset);
      if (!options.ownOffsets) await commitOffsetsIfNecessary();
      await heartbeat();
    }
  };
}
