/** The Kafka topics and who keys them how. Names are prefixed per deployment (tests use random prefixes). */
export const TOPICS = {
  /** The registry's log: every lifecycle fact, keyed by stream (tool or server name). Kept forever. */
  registryEvents: 'estate.registry.events',
  /** Current state of each tool, keyed by tool name; compacted. A null value is a tombstone. */
  catalog: 'estate.catalog',
  /** Every call, refusal and probe seen by the edge, keyed by principal. */
  calls: 'estate.calls',
  /** Drift an edge saw in an upstream (ToolVersionDriftDetected), keyed by tool name; the registry quarantines on it. */
  drift: 'estate.drift',
  /** Messages a consumer could not store or apply, with the reason; keyed by the service that gave up on them. */
  deadLetter: 'estate.deadletter',
} as const;

export type TopicKey = keyof typeof TOPICS;

export function topicName(prefix: string, key: TopicKey): string {
  return `${prefix}${TOPICS[key]}`;
}
