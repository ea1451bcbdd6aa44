import type { DataSource } from 'typeorm';
import type { FeedFilter } from '@estate/events';
import { inTransaction } from '@estate/platform';
import { WebhookDeliveryEntity, WebhookSubscriptionEntity } from './webhook.entities';
import { SecretUnreadable, WebhookSecretBox } from './webhook-secret.box';

export interface Subscription {
  id: string;
  url: string;
  filter: FeedFilter;
  secret: string;
  /** Why the stored secret could not be opened (then `secret` is empty and nothing is delivered). */
  secretProblem?: string;
  createdBy: string;
  createdAt: string;
  cursorSeq: number;
}

export interface Delivery {
  id: string;
  subscriptionId: string;
  seq: number;
  eventId: string;
  tool: string;
  state: 'pending' | 'delivered' | 'dead';
  attempts: number;
  nextAttemptAt: Date;
  lastError: string | null;
}

/** An entry of the trail, queued for one subscription. */
export interface QueuedEvent {
  seq: number;
  eventId: string;
  tool: string;
}

function openSecret(box: WebhookSecretBox, stored: string): { secret: string; secretProblem?: string } {
  try {
    return { secret: box.open(stored) };
  } catch (error) {
    if (error instanceof SecretUnreadable) return { secret: '', secretProblem: error.message };
    throw error;
  }
}

const toSubscription = (row: WebhookSubscriptionEntity, box: WebhookSecretBox): Subscription => ({
  id: row.id, url: row.url, filter: JSON.parse(row.filter) as FeedFilter, ...openSecret(box, row.secret),
  createdBy: row.createdBy, createdAt: row.createdAt.toISOString(), cursorSeq: Number(row.cursorSeq),
});

const toDelivery = (row: WebhookDeliveryEntity): Delivery => ({
  id: row.id, subscriptionId: row.subscriptionId, seq: Number(row.seq), eventId: row.eventId, tool: row.tool,
  state: row.state, attempts: row.attempts, nextAttemptAt: row.nextAttemptAt, lastError: row.lastError,
});

/** Subscriptions and their delivery queue in the audit schema: the whole state a restart resumes from. */
export class WebhookRepository {
  constructor(private readonly db: DataSource, private readonly box = new WebhookSecretBox(undefined)) {}

  async create(subscription: Subscription): Promise<void> {
    const { secretProblem: _problem, ...row } = subscription;
    await this.db.manager.insert(WebhookSubscriptionEntity, {
      ...row, secret: this.box.seal(subscription.secret), filter: JSON.stringify(subscription.filter),
      createdAt: new Date(subscription.createdAt), cursorSeq: String(subscription.cursorSeq),
    });
  }

  async all(): Promise<Subscription[]> {
    return (await this.db.manager.find(WebhookSubscriptionEntity, { order: { createdAt: 'ASC' } })).map((row) => toSubscription(row, this.box));
  }

  async get(id: string): Promise<Subscription | undefined> {
    const row = await this.db.manager.findOneBy(WebhookSubscriptionEntity, { id });
    return row ? toSubscription(row, this.box) : undefined;
  }

  /**
   * Seals the secrets stored in plain text before a key was set; returns how many. The update
   * names the old value, so two copies starting together cannot seal one row twice.
   */
  async sealStoredSecrets(): Promise<number> {
    if (!this.box.sealing) return 0;
    let sealed = 0;
    const rows = await this.db.manager.find(WebhookSubscriptionEntity, { select: { id: true, secret: true } });
    for (const row of rows) {
      if (!this.box.needsSealing(row.secret)) continue;
      const result = await this.db.manager.update(WebhookSubscriptionEntity, { id: row.id, secret: row.secret }, { secret: this.box.seal(row.secret) });
      sealed += result.affected ?? 0;
    }
    return sealed;
  }

  /** Removes the subscription with its queue and dead letters; false when there was none. */
  async delete(id: string): Promise<boolean> {
    return inTransaction(this.db, async (runner) => {
      await runner.manager.delete(WebhookDeliveryEntity, { subscriptionId: id });
      return ((await runner.manager.delete(WebhookSubscriptionEntity, { id })).affected ?? 0) > 0;
    });
  }

  /**
   * Queues events and moves the cursor in one transaction, so a crash either keeps both or
   * neither: no entry is skipped and none is queued twice (the unique key absorbs a re-read).
   */
  async queue(subscriptionId: string, events: QueuedEvent[], cursorSeq: number, now: Date): Promise<void> {
    await inTransaction(this.db, async (runner) => {
      if (events.length > 0) {
        await runner.manager.createQueryBuilder().insert().into(WebhookDeliveryEntity).values(events.map((event) => ({
          subscriptionId, seq: String(event.seq), eventId: event.eventId, tool: event.tool,
          state: 'pending' as const, attempts: 0, nextAttemptAt: now, lastError: null, updatedAt: now,
        }))).orIgnore().execute();
      }
      await runner.manager.update(WebhookSubscriptionEntity, { id: subscriptionId }, { cursorSeq: String(cursorSeq) });
    });
  }

  /** Per tool, the oldest pending delivery: only it may be tried, so each tool's events stay in order. */
  async heads(subscriptionId: string, limit: number): Promise<Delivery[]> {
    const rows: WebhookDeliveryEntity[] = await this.db.manager.createQueryBuilder(WebhookDeliveryEntity, 'd')
      .distinctOn(['d.tool'])
      .where('d.subscriptionId = :subscriptionId AND d.state = :state', { subscriptionId, state: 'pending' })
      .orderBy('d.tool').addOrderBy('d.seq')
      .limit(limit)
      .getMany();
    return rows.map(toDelivery);
  }

  async delivered(id: string, attempts: number, now: Date): Promise<void> {
    await this.db.manager.update(WebhookDeliveryEntity, { id }, { state: 'delivered', attempts, lastError: null, updatedAt: now });
  }

  /**
   * Deletes up to `limit` of a subscription's delivered rows last touched before `before`. Safe at
   * any time: the cursor already stands past them, so they are never queued again.
   */
  async pruneDelivered(subscriptionId: string, before: Date, limit: number): Promise<number> {
    // Raw SQL: a bounded delete (LIMIT through a subquery), which TypeORM's delete cannot say.
    const result: [unknown[], number] = await this.db.query(
      `DELETE FROM audit.webhook_deliveries WHERE id IN (
         SELECT id FROM audit.webhook_deliveries
          WHERE subscription_id = $1 AND state = 'delivered' AND updated_at < $2
          LIMIT $3)`,
      [subscriptionId, before, limit],
    );
    return result[1];
  }

  async retryLater(id: string, attempts: number, error: string, at: Date, now: Date): Promise<void> {
    await this.db.manager.update(WebhookDeliveryEntity, { id }, { attempts, lastError: error, nextAttemptAt: at, updatedAt: now });
  }

  async dead(id: string, attempts: number, error: string, now: Date): Promise<void> {
    await this.db.manager.update(WebhookDeliveryEntity, { id }, { state: 'dead', attempts, lastError: error, updatedAt: now });
  }

  async deadLetters(subscriptionId: string, limit: number): Promise<Delivery[]> {
    const rows = await this.db.manager.find(WebhookDeliveryEntity, { where: { subscriptionId, state: 'dead' }, order: { seq: 'ASC' }, take: limit });
    return rows.map(toDelivery);
  }

  /** Puts a dead delivery back in the queue with fresh attempts; undefined when there is no such dead letter. */
  async replay(subscriptionId: string, deliveryId: string, now: Date): Promise<Delivery | undefined> {
    if (!/^\d{1,18}$/.test(deliveryId)) return undefined;
    const result = await this.db.manager.update(
      WebhookDeliveryEntity, { id: deliveryId, subscriptionId, state: 'dead' }, { state: 'pending', attempts: 0, nextAttemptAt: now, updatedAt: now },
    );
    if ((result.affected ?? 0) === 0) return undefined;
    return toDelivery(await this.db.manager.findOneByOrFail(WebhookDeliveryEntity, { id: deliveryId }));
  }

  /** Queue figures for the subscription views. */
  async counts(subscriptionId: string): Promise<Record<'pending' | 'delivered' | 'dead', number>> {
    const rows = await this.db.manager.createQueryBuilder(WebhookDeliveryEntity, 'd')
      .select('d.state', 'state').addSelect('count(*)', 'n')
      .where('d.subscriptionId = :subscriptionId', { subscriptionId })
      .groupBy('d.state').getRawMany<{ state: string; n: string }>();
    const counts = { pending: 0, delivered: 0, dead: 0 };
    for (const row of rows) counts[row.state as keyof typeof counts] = Number(row.n);
    return counts;
  }
}
