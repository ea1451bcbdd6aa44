import { catalogHeadText, catalogVersionRecordText } from '@estate/catalog';
import type { CatalogEntry } from '@estate/events';
import { batchBySize, messageBytes, publishOrSetAside, type EventBus, type Logger, type OutgoingMessage } from '@estate/platform';

/** Records per send. */
const BATCH = 500;

/** The versions of a tool whose records must go out; undefined: all of them. */
export type ChangedVersions = (tool: string) => ReadonlySet<string> | undefined;

/**
 * Publishes catalog entries as the topic carries them: for each tool, a record per version that
 * changed (all of them when `changed` does not say), then its head, so an edge that reads the head
 * already holds every version it lists. A publish sends one version and a head, however long the
 * tool's history; before, the whole entry went out on every change.
 *
 * A record the topic refuses (larger than its max.message.bytes, which is far above the largest
 * version the registry accepts) withdraws the tool (tombstones: the edges stop serving it) rather
 * than leaving it stale, since a stale version could miss a quarantine; the rest goes on.
 */
export async function publishCatalogEntries(
  bus: Pick<EventBus, 'publish'>, topic: string, entries: CatalogEntry[], maxBytes: number, logger: Logger,
  headers?: (tool: string) => Record<string, string>, changed?: ChangedVersions,
): Promise<void> {
  const messages: Array<OutgoingMessage & { tool: string }> = [];
  for (const entry of entries) {
    const extra = headers ? { headers: headers(entry.name) } : {};
    const versions = changed?.(entry.name);
    for (const version of entry.versions) {
      if (versions === undefined || versions.has(version.version)) messages.push({ ...catalogVersionRecordText(entry, version), ...extra, tool: entry.name });
    }
    messages.push({ ...catalogHeadText(entry), ...extra, tool: entry.name });
  }
  for (const batch of batchBySize(messages, messageBytes, BATCH, maxBytes)) {
    await publishOrSetAside(bus, topic, batch, ({ key, value, headers: h }) => ({ key, value, ...(h ? { headers: h } : {}) }), async (record, error) => {
      logger.error(
        { topic, tool: record.tool, key: record.key, bytes: messageBytes(record) },
        `the catalog record ${record.key} (${messageBytes(record)} bytes) is larger than ${topic} takes; the tool ${record.tool} is withdrawn from the edges until it fits: ${error.message}`,
      );
      // The refused version's earlier record goes too: the head that follows then lists a version no edge
      // holds, so no edge serves the tool until every record of it fits (a stale version could hide a quarantine).
      await bus.publish(topic, record.key === record.tool ? [{ key: record.tool, value: null }] : [{ key: record.key, value: null }, { key: record.tool, value: null }]);
    });
  }
}
