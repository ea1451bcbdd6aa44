/**
 * The event bus port. Kafka in production, an in-process log in the embedded mode; both keep
 * per-partition order and hand every message to one handler at a time.
 */
export interface OutgoingMessage {
  key: string;
  /** null is a tombstone on compacted topics. */
  value: string | null;
  headers?: Record<string, string>;
}

export interface BusMessage {
  topic: string;
  partition: number;
  /** Kafka offsets are 64-bit; kept as decimal strings. */
  offset: string;
  key: string | null;
  value: string | null;
  headers: Record<string, string>;
}

export interface TopicSpec {
  name: string;
  compacted?: boolean;
  partitions?: number;
}

export interface SubscribeOptions {
  topic: string;
  groupId: string;
  /** Where a group with no known position starts. */
  fromBeginning: boolean;
  /**
   * For consumers that keep their own position (committed with their state): the next offset to
   * read per partition. The bus seeks there and commits nothing to the broker.
   */
  ownOffsets?: (partition: number) => Promise<string | undefined>;
  handle(message: BusMessage): Promise<void>;
}

export interface Subscription {
  stop(): Promise<void>;
}

export interface EventBus {
  ensureTopics(topics: TopicSpec[]): Promise<void>;
  publish(topic: string, messages: OutgoingMessage[]): Promise<void>;
  subscribe(options: SubscribeOptions): Promise<Subscription>;
  close(): Promise<void>;
}

export const EVENT_BUS = Symbol('EventBus');
