import { topicName, type TopicKey } from '@estate/events';
import type { TopicSpec } from './event-bus.port';
import { CATALOG_ENTRY_MAX_BYTES, RECORD_BATCH_SLACK_BYTES, REGISTRY_EVENT_MAX_BYTES } from './message.size';

/** Seven days: how long calls stay on their topic unless ESTATE_CALLS_RETENTION_MS says otherwise. */
export const DEFAULT_CALLS_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * The declared configuration of Estate's topics. The registry log is kept forever (it is
 * the log every projection can be rebuilt from); the catalog keeps the latest entry per tool;
 * calls age out after a configured time.
 */
export function estateTopics(prefix: string, callsRetentionMs: number): Record<TopicKey, TopicSpec> {
  return {
    // Holds the largest event the registry stores (its relay batches by bytes up to that bound too):
    // with the broker's default of about 1 MB, one large contract would stop the relay for good.
    registryEvents: {
      name: topicName(prefix, 'registryEvents'), retentionMs: -1, retentionBytes: -1, recreate: false,
      maxMessageBytes: REGISTRY_EVENT_MAX_BYTES + RECORD_BATCH_SLACK_BYTES,
    },
    catalog: catalogTopicSpec(topicName(prefix, 'catalog')),
    calls: { name: topicName(prefix, 'calls'), retentionMs: callsRetentionMs },
    // A drift report is acted on within seconds; the registry's log keeps the quarantine itself.
    drift: { name: topicName(prefix, 'drift'), retentionMs: callsRetentionMs },
    // Dead letters are evidence of what a consumer could not apply: kept like the registry log.
    deadLetter: { name: topicName(prefix, 'deadLetter'), retentionMs: -1, retentionBytes: -1 },
  };
}

/** The catalog topic: the latest entry per tool, each up to CATALOG_ENTRY_MAX_BYTES. */
export function catalogTopicSpec(name: string): TopicSpec {
  return { name, compacted: true, maxMessageBytes: CATALOG_ENTRY_MAX_BYTES + RECORD_BATCH_SLACK_BYTES };
}
