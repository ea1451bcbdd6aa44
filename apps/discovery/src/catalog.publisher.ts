import { catalogEntryText } from '@estate/catalog';
import type { CatalogEntry } from '@estate/events';
import { batchBySize, messageBytes, publishOrSetAside, type EventBus, type Logger, type OutgoingMessage } from '@estate/platform';

/** Entries per send. */
const BATCH = 500;

/**
 * Publishes catalog entries in batches the catalog topic takes. One entry holds every version of a
 * tool, so a tool with many large versions can outgrow the topic's max.message.bytes however high
 * it is set. Such an entry is withdrawn (a tombstone: the edges stop serving the tool) rather than
 * left stale, since a stale entry could miss a quarantine; and the rest of the catalog goes on.
 */
export async function publishCatalogEntries(
  bus: Pick<EventBus, 'publish'>, topic: string, entries: CatalogEntry[], maxBytes: number, logger: Logger, headers?: (tool: string) => Record<string, string>,
): Promise<void> {
  const messages: OutgoingMessage[] = entries.map((entry) => ({ key: entry.name, value: catalogEntryText(entry), ...(headers ? { headers: headers(entry.name) } : {}) }));
  for (const batch of batchBySize(messages, messageBytes, BATCH, maxBytes)) {
    await publishOrSetAside(bus, topic, batch, (m) => m, async (entry, error) => {
      logger.error(
        { topic, tool: entry.key, bytes: messageBytes(entry) },
        `the catalog entry of ${entry.key} (${messageBytes(entry)} bytes, every version) is larger than ${topic} takes; the tool is withdrawn from the edges until its entry fits: ${error.message}`,
      );
      await bus.publish(topic, [{ key: entry.key, value: null }]);
    });
  }
}
