import { feedFilterAdmits, toCloudEvent, type CloudEventOptions, type EventEnvelope } from '@estate/events';
import type { Logger } from '@estate/platform';
import type { AuditEntry } from '../domain/audit-entry.mapper';
import type { AuditRepository } from '../store/audit.repository';
import { storableEntry } from '../store/storable-entry';
import { afterFailure, type RetryPolicy } from './webhook.backoff';
import type { Delivery, Subscription, WebhookRepository } from './webhook.repository';
import type { WebhookSender } from './webhook.sender';
import { signatureHeader } from './webhook.signature';
import { webhookTrailEntry, type WebhookFact } from './webhook.trail';

export type DeliveryOutcome = 'delivered' | 'failed' | 'dead';

/** What every subscription's worker shares: stores, sender, settings, and the clock, ids and randomness passed in. */
export interface WorkerParts {
  repo: WebhookRepository;
  trail: AuditRepository;
  sender: WebhookSender;
  registryTopic: string;
  retry: RetryPolicy;
  /** Deliveries one subscription has in flight at once (one per tool at most). */
  concurrency: number;
  /** Read per event: the address it names is known once audit listens. */
  cloudEvents: () => CloudEventOptions;
  now: () => Date;
  newId: () => string;
  random: () => number;
  counted: (outcome: DeliveryOutcome) => void;
  logger: Logger;
}

const PAGE = 200;
const HEADS = 1000;

/**
 * Delivers one subscription's events. It first queues what the trail holds past its cursor, then
 * tries, per tool, the oldest pending delivery once it is due: a tool waits for its own failed
 * delivery, other tools and other subscriptions do not. Runs one drain at a time.
 */
export class SubscriptionWorker {
  private running = false;
  private again = false;
  private stopped = false;
  private timer?: NodeJS.Timeout;
  /** The last drain failed (the database, most likely): the dispatcher's tick tries again. */
  failing = false;
  private idle: Promise<void> = Promise.resolve();
  /** Aborts the attempts in flight when the worker stops. */
  private readonly stopping = new AbortController();

  constructor(readonly subscription: Subscription, private readonly parts: WorkerParts) {}

  pump(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    this.idle = this.drain()
      .then(() => { this.failing = false; })
      .catch((error: unknown) => {
        this.failing = true;
        this.parts.logger.warn({ err: error, subscription: this.subscription.id }, 'webhook worker could not proceed; retrying on the next tick');
      })
      .finally(() => {
        this.running = false;
        if (this.again) {
          this.again = false;
          this.pump();
        }
      });
  }

  /**
   * Stops at once: attempts in flight are aborted, not counted, and stay pending, so whoever
   * delivers next (this process after a restart, or another instance) sends them again.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.stopping.abort();
    await this.idle;
  }

  private async drain(): Promise<void> {
    while (!this.stopped) {
      await this.enqueue();
      const heads = await this.parts.repo.heads(this.subscription.id, HEADS);
      const now = this.parts.now().getTime();
      const due = heads.filter((head) => head.nextAttemptAt.getTime() <= now);
      if (due.length === 0) return this.wakeAt(heads);
      await inPool(due, this.parts.concurrency, (delivery) => this.attempt(delivery));
    }
  }

  private wakeAt(heads: Delivery[]): void {
    if (heads.length === 0 || this.stopped) return;
    const next = Math.min(...heads.map((head) => head.nextAttemptAt.getTime()));
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.pump(), Math.max(0, next - this.parts.now().getTime()));
  }

  private async enqueue(): Promise<void> {
    const { filter } = this.subscription;
    for (;;) {
      const entries = await this.parts.trail.topicEntriesAfter(this.parts.registryTopic, this.subscription.cursorSeq, PAGE);
      if (entries.length === 0) return;
      const wanted = entries.flatMap((entry) => {
        const event = toCloudEvent(entry.payload, this.parts.cloudEvents());
        return feedFilterAdmits(filter, event) ? [{ seq: entry.seq, eventId: entry.eventId, tool: event.subject ?? '' }] : [];
      });
      const cursor = entries[entries.length - 1].seq;
      await this.parts.repo.queue(this.subscription.id, wanted, cursor, this.parts.now());
      this.subscription.cursorSeq = cursor;
      if (entries.length < PAGE) return;
    }
  }

  private async attempt(delivery: Delivery): Promise<void> {
    if (this.stopped) return;
    const { repo, sender, now } = this.parts;
    const [entry] = await this.parts.trail.topicEntriesAfter(this.parts.registryTopic, delivery.seq - 1, 1);
    // The trail is append-only, so a queued seq is always there; a different one would be a bug worth stopping on.
    if (entry?.seq !== delivery.seq) throw new Error(`trail entry ${delivery.seq} not found for delivery ${delivery.id}`);
    const body = JSON.stringify(toCloudEvent(entry.payload as EventEnvelope, this.parts.cloudEvents()));
    const unix = Math.floor(now().getTime() / 1000);
    const signature = signatureHeader(this.subscription.secret, unix, body);
    const outcome = await sender.send({
      url: this.subscription.url,
      body,
      headers: {
        'content-type': 'application/cloudevents+json', 'user-agent': 'estate-webhooks',
        'webhook-id': delivery.eventId, 'webhook-timestamp': String(unix), 'webhook-signature': signature, 'x-estate-signature': signature,
      },
    }, this.stopping.signal);
    // Cut off by the stop, not refused by the receiver: no attempt to count.
    if (!outcome.ok && this.stopped) return;
    const attempts = delivery.attempts + 1;
    // The trail hears of an end before the queue moves on: a crash in between repeats the fact, never loses it.
    if (outcome.ok) {
      await this.finished('delivered', delivery, entry, attempts, `answered ${outcome.status}`);
      return repo.delivered(delivery.id, attempts, now());
    }
    const next = outcome.refused ? 'dead' : afterFailure(this.parts.retry, attempts, this.parts.random());
    if (next === 'dead') {
      // The URL stays out of the log: its path or query may carry a receiver's token.
      this.parts.logger.warn({ subscription: this.subscription.id, delivery: delivery.id, eventId: delivery.eventId, attempts, reason: outcome.error }, 'webhook delivery dead-lettered');
      await this.finished('dead', delivery, entry, attempts, outcome.error);
      return repo.dead(delivery.id, attempts, outcome.error, now());
    }
    await repo.retryLater(delivery.id, attempts, outcome.error, new Date(now().getTime() + next.retryInMs), now());
    this.parts.counted('failed');
  }

  /** A delivery's end joins the trail: what was delivered to whom, or given up on and why. */
  private async finished(outcome: 'delivered' | 'dead', delivery: Delivery, entry: AuditEntry, attempts: number, detail: string): Promise<void> {
    this.parts.counted(outcome);
    const fact: WebhookFact = {
      id: this.parts.newId(), type: outcome === 'delivered' ? 'WebhookDelivered' : 'WebhookDeadLettered', subscriptionId: this.subscription.id,
      actor: 'estate:webhooks', at: this.parts.now(), tool: delivery.tool, version: entry.version ?? undefined, outcome: outcome === 'delivered' ? 'delivered' : 'dead_lettered',
      data: { subscriptionId: this.subscription.id, deliveryId: delivery.id, eventId: delivery.eventId, eventType: entry.type, attempts, detail },
    };
    await this.parts.trail.appendOne(storableEntry(webhookTrailEntry(fact)), { notify: false });
  }
}

/** Runs `work` over `items`, at most `limit` at a time. */
async function inPool<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) await work(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}
