import { Column, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn, Unique } from 'typeorm';

/** A webhook subscription and how far it has read the trail (`cursor_seq`: every entry up to it is queued or not wanted). */
@Entity({ schema: 'audit', name: 'webhook_subscriptions' })
export class WebhookSubscriptionEntity {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ type: 'text' })
  url!: string;

  /** The parsed FeedFilter as JSON text. */
  @Column({ type: 'text' })
  filter!: string;

  /** The HMAC key; never answered after the subscription was created. */
  @Column({ type: 'text' })
  secret!: string;

  @Column({ name: 'created_by', type: 'text' })
  createdBy!: string;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'cursor_seq', type: 'bigint' })
  cursorSeq!: string;
}

/**
 * One event owed to one subscription. `pending` rows are the queue: per tool, only the oldest is
 * tried, so a tool's events arrive in order; `dead` rows are the dead-letter list.
 */
@Entity({ schema: 'audit', name: 'webhook_deliveries' })
@Unique('webhook_deliveries_subscription_seq', ['subscriptionId', 'seq'])
@Index('webhook_deliveries_queue', ['subscriptionId', 'state', 'tool', 'seq'])
export class WebhookDeliveryEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: string;

  @Column({ name: 'subscription_id', type: 'uuid' })
  subscriptionId!: string;

  /** The trail entry delivered. */
  @Column({ type: 'bigint' })
  seq!: string;

  @Column({ name: 'event_id', type: 'text' })
  eventId!: string;

  /** The ordering key: the event's subject tool ('' for events about no tool). */
  @Column({ type: 'text' })
  tool!: string;

  @Column({ type: 'text' })
  state!: 'pending' | 'delivered' | 'dead';

  @Column({ type: 'integer' })
  attempts!: number;

  @Column({ name: 'next_attempt_at', type: 'timestamptz' })
  nextAttemptAt!: Date;

  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError!: string | null;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
