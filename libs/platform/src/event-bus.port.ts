/**
 * The event bus port. Kafka in production, a durable log in PostgreSQL in the embedded mode, an
 * in-memory log in unit tests; all keep per-partition order and hand every message to one
 * handler at a time.
 */
export interface OutgoingMessage {
  key: string;
  /** null is a tombstone on compacted topics. */
  value: string | null;
  headers?: Record<string, string>;
}

/**
 * The bus refused a message for what it is (larger than the topic takes), not for a passing state:
 * sending it again fails again, so a sender must set it aside instead of retrying forever.
 */
export class MessageRefused extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'MessageRefused';
  }
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

/**
 * A topic and the configuration it must have. Retention is declared here, never inherited from a
 * broker's defaults: a log that is the truth must not age out. -1 means unlimited.
 */
export interface TopicSpec {
  name: string;
  compacted?: boolean;
  partitions?: number;
  retentionMs?: number;
  retentionBytes?: number;
  /** The largest record batch the topic accepts (Kafka's `max.message.bytes`); unset keeps the broker's default. */
  maxMessageBytes?: number;
  /**
   * Whether the bus may create the topic again when it finds it gone (on a publish or a consumer
   * crash). False for the registry log: only its relay may, because it refills it in order first.
   */
  recreate?: boolean;
}

export interface SubscribeOptions {
  topic: string;
  groupId: string;
  /** Where a group with no known position starts. */
  fromBeginning: boolean;
  /**
   * For consumers that keep their own position (committed with their state): the next offset to
   * read per partition. The bus asks on start and on every group join, seeks there and commits
   * nothing to the broker; no message from another position reaches `handle` meanwhile.
   */
  ownOffsets?: (partition: number) => Promise<string | undefined>;
  /** One message at a time; a failure retries that message. Ignored when `handleBatch` is given. */
  handle(message: BusMessage): Promise<void>;
  /**
   * Consecutive messages of one partition at a time, in offset order (at most `maxBatch`). The
   * batch succeeds or fails as a whole: a failure delivers the same messages again, and a bus that
   * keeps the group's position moves it past the batch only after success.
   */
  handleBatch?(batch: BusBatch): Promise<void>;
  maxBatch?: number;
}

/** Consecutive messages of one partition, oldest first; never empty. */
export interface BusBatch {
  topic: string;
  partition: number;
  messages: BusMessage[];
}

/** The batch size a bus uses when the subscriber names none. */
export const DEFAULT_MAX_BATCH = 500;

/** Where a partition's log starts and ends: `low` is the first offset still held, `high` the next one to be written. */
export interface PartitionOffsets {
  partition: number;
  low: string;
  high: string;
}

export interface Subscription {
  stop(): Promise<void>;
}

export interface EventBus {
  ensureTopics(topics: TopicSpec[]): Promise<void>;
  publish(topic: string, messages: OutgoingMessage[]): Promise<void>;
  subscribe(options: SubscribeOptions): Promise<Subscription>;
  /**
   * The offsets each partition of a topic holds now (an empty list when the topic does not exist). Consumers and the relay compare them with
   * the positions they stored to notice a log that was reset, truncated or recreated.
   */
  offsets(topic: string): Promise<PartitionOffsets[]>;
  /**
   * Where a consumer group that lets the bus keep its position stands on a topic: the next offset
   * per partition, absent for partitions it never committed. Health reports use it for the lag
   * before a consumer's first message; a bus without it leaves that lag unknown.
   */
  committed?(groupId: string, topic: string): Promise<Map<number, string>>;
  /**
   * Up to `limit` messages of one partition from `offset` on, read outside any group: a rebuild
   * folds a whole log this way in large pages, without a group join or a handler call per
   * message. A bus without it is read through a throwaway subscription instead.
   */
  readPage?(topic: string, partition: number, offset: string, limit: number): Promise<BusMessage[]>;
  /**
   * Stops every subscription's consumer at once and refuses new subscriptions, before the
   * services that own them stop one after another: a bus whose consumers take a while to leave
   * (Kafka waits for the fetch in flight) then costs that wait once, not once per service.
   * Positions are as safe as after each subscription's own stop; sending still works.
   */
  stopConsumers?(): Promise<void>;
  close(): Promise<void>;
}

export const EVENT_BUS = Symbol('EventBus');
