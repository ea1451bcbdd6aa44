import { MessageRefused, type EventBus, type OutgoingMessage } from './event-bus.port';

/**
 * The largest registry event (key, value and headers, UTF-8) the registry stores. A request body
 * may be 1 MB; the event adds its envelope and the decider's change list, so the bound is twice that.
 */
export const REGISTRY_EVENT_MAX_BYTES = 2 * 1024 * 1024;

/**
 * The largest catalog entry discovery publishes. An entry holds every version of a tool: room for a
 * few versions of the largest contract, far more of ordinary ones (see publishCatalogEntries).
 */
export const CATALOG_ENTRY_MAX_BYTES = 4 * REGISTRY_EVENT_MAX_BYTES;

/** What a record adds to its key, value and headers inside a Kafka record batch (lengths, deltas, attributes), rounded up. */
const RECORD_OVERHEAD_BYTES = 64;

/** A batch's own header (offsets, CRC, producer fields) and room for per-record overhead the estimate misses. */
export const RECORD_BATCH_SLACK_BYTES = 64 * 1024;

/** The bytes a message takes in a record batch, near enough to keep batches under a topic's `max.message.bytes`. */
export function messageBytes(message: OutgoingMessage): number {
  let bytes = RECORD_OVERHEAD_BYTES + Buffer.byteLength(message.key) + (message.value === null ? 0 : Buffer.byteLength(message.value));
  for (const [name, value] of Object.entries(message.headers ?? {})) bytes += Buffer.byteLength(name) + Buffer.byteLength(value) + 2;
  return bytes;
}

/**
 * Splits messages into consecutive batches of at most `maxCount` messages and `maxBytes` bytes
 * (see messageBytes); a message over `maxBytes` goes alone, so a batch always holds at least one.
 */
export function batchBySize<T>(items: T[], sizeOf: (item: T) => number, maxCount: number, maxBytes: number): T[][] {
  const batches: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const item of items) {
    const size = sizeOf(item);
    if (current.length > 0 && (current.length >= maxCount || bytes + size > maxBytes)) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(item);
    bytes += size;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

/**
 * Publishes items as one batch. When the bus refuses the batch for its size, it sends them one by
 * one and hands each one it still refuses to `setAside` instead of failing: sending it again would
 * fail again and hold back everything behind it. Any other failure is thrown. Returns how many were set aside.
 */
export async function publishOrSetAside<T>(
  bus: Pick<EventBus, 'publish'>, topic: string, items: T[], messageOf: (item: T) => OutgoingMessage, setAside: (item: T, error: MessageRefused) => Promise<void>,
): Promise<number> {
  try {
    await bus.publish(topic, items.map(messageOf));
    return 0;
  } catch (error) {
    if (!(error instanceof MessageRefused)) throw error;
    if (items.length === 1) {
      await setAside(items[0], error);
      return 1;
    }
    let setAsideCount = 0;
    for (const item of items) setAsideCount += await publishOrSetAside(bus, topic, [item], messageOf, setAside);
    return setAsideCount;
  }
}
