import type { CatalogEntry } from '@estate/events';
import { batchBySize, MessageRefused, messageBytes, type EventBus, type Logger, type OutgoingMessage } from '@estate/platform';

/** Entries per send. */
const BATCH = 500;

/**
 * Publishes catalog entries in batches the catalog topic takes. One entry holds every version of a
 * tool, so a tool with many large versions can outgrow the topic's max.message.bytes however high
 * it is set. Such an entry is withdrawn (a tombstone: the edges stop serving the tool) rather than
 * left stale, since a stale entry could miss a quarantine; and the rest of the catalog goes on.
 */
export async function publishCatalogEntries(bus: EventBus, topic: string, entries: CatalogEntry[], maxBytes: number, logger: Logger): Promise<void> {
  const messages: OutgoingMessage[] = entries.map((entry) => ({ key: entry.name, value: JSON.stringify(entry) }));
  for (const batch of batchBySize(messages, messageBytes, BATCH, maxBytes)) await publishOrWithdraw(bus, topic, batch, logger);
}

async function publishOrWithdraw(bus: EventBus, topic: string, batch: OutgoingMessage[], logger: Logger): Promise<void> {
  try {
    await bus.publish(topic, batch);
  } catch (error) {
    if (!(error instanceof MessageRefused)) throw error;
    if (batch.length > 1) {
      for (const one of batch) await publishOrWithdraw(bus, topic, [one], logger);
      return;
    }
    const [entry] = batch;
    logger.error(
      { topic, tool: entry.key, bytes: messageBytes(entry) },
      `the catalog entry of ${entry.key} (${messageBytes(entry)} bytes, every version) is larger than ${topic} takes; the tool is withdrawn from the edges until versions are retired: ${error.message}`,
    );
    await bus.publish(topic, [{ key: entry.key, value: null }]);
  }
}
