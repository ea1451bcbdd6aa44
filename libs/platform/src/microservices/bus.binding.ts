import type { DataSource, QueryRunner } from 'typeorm';
import type { DeadLetterOffice, DeadLetterRecord } from '../consumer/dead-letter.office';
import type { StoredPosition } from '../log-position';

/** A consumer's own positions: read on every join, written inside each batch's transaction. */
export interface PositionStore {
  get(topic: string, partition: number): Promise<StoredPosition | undefined>;
  set(runner: QueryRunner, topic: string, partition: number, position: StoredPosition): Promise<void>;
}

/** Where a consumer keeps what it gives up on: its own table (in the batch's transaction) and the dead-letter topic. */
export interface DeadLetterSink {
  office: DeadLetterOffice;
  /** The consumer's name in dead-letter records. */
  consumer: string;
  store(runner: QueryRunner, record: DeadLetterRecord): Promise<void>;
  /** Unique constraints whose conflict means "already recorded" (a redelivery), not poison. */
  dedupeConstraints?: readonly string[];
}

/**
 * A consumer that applies each batch and its position in one PostgreSQL transaction and seeks to
 * the positions it stored (discovery, audit): the effect of every message is applied exactly once.
 */
export interface TransactionalBinding {
  db: DataSource;
  positions: PositionStore;
  deadLetters: DeadLetterSink;
  /**
   * The log no longer holds what was applied (reset, truncated, recreated): the consumer says so
   * in its own words and heals what it serves. `unread` says events were deleted before being read.
   */
  onLogLost(event: { topic: string; partition: number; startAt: string; reason: string; unread: boolean }): Promise<void>;
  /**
   * The bus fetches the next batch while this one is applied, instead of after its commit. Only
   * for a consumer that records each event at most once by its own key (audit's event ids): when a
   * group hands a partition over, its new owner may read the position before the batch still being
   * applied here commits, and so get that batch again.
   */
  readAhead?: boolean;
}

/** How one `@EventPattern` of the bus transport is subscribed. */
export interface BusBinding {
  topic: string;
  groupId: string;
  /** Where a group with no position starts; true unless said otherwise. */
  fromBeginning?: boolean;
  maxBatch?: number;
  /** Span name for each batch (tracing and the correlation id of log lines). */
  spanName?: string;
  /** Absent: the bus keeps the group's position and commits it after each batch (at-least-once). */
  transactional?: TransactionalBinding;
}
