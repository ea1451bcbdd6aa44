import type { Logger } from '@estate/platform';
import type { AuditRepository } from '../store/audit.repository';
import { SubscriptionWorker, type DeliveryOutcome, type WorkerParts } from './subscription.worker';
import type { WebhookLeadership } from './webhook.leadership';
import type { Subscription } from './webhook.repository';

/**
 * One worker per subscription, so a slow or dead receiver holds up only its own queue. A tick
 * every `pollMs` keeps the lock (one delivering instance), matches the workers to the stored
 * subscriptions (another instance may have added or removed one), wakes them when the trail has
 * grown (one query for all of them) and retries workers whose last drain failed. Between ticks,
 * `appended` (the trail's NOTIFY) wakes the workers at once, so delivery does not wait for a
 * tick. Backoff waits are each worker's own timer.
 */
/** Delivered rows are deleted at most this often, and at most PRUNE_BATCH per subscription each time. */
const PRUNE_EVERY_MS = 60_000;
const PRUNE_BATCH = 10_000;

export interface DispatcherTiming {
  pollMs: number;
  keepDeliveredMs: number;
}

export class WebhookDispatcher {
  private readonly workers = new Map<string, SubscriptionWorker>();
  private readonly outcomes = new Map<DeliveryOutcome, number>([['delivered', 0], ['failed', 0], ['dead', 0]]);
  private tick?: NodeJS.Timeout;
  private polling = false;
  private stopped = false;
  private lastSeq = -1;
  private lastPrune = Number.NEGATIVE_INFINITY;
  private readonly parts: WorkerParts;
  /** Subscriptions whose secret cannot be opened, reported once each. */
  private readonly unreadable = new Set<string>();

  constructor(
    parts: Omit<WorkerParts, 'counted'>,
    private readonly trail: AuditRepository,
    private readonly leadership: WebhookLeadership,
    private readonly timing: DispatcherTiming,
    private readonly logger: Logger,
  ) {
    this.parts = { ...parts, counted: (outcome) => this.outcomes.set(outcome, (this.outcomes.get(outcome) ?? 0) + 1) };
  }

  /** Deliveries by outcome since the process started (the metrics read this). */
  get counts(): ReadonlyMap<DeliveryOutcome, number> {
    return this.outcomes;
  }

  async start(): Promise<void> {
    const sealed = await this.parts.repo.sealStoredSecrets();
    if (sealed > 0) this.logger.info({ sealed }, 'webhook secrets stored in plain text were sealed under ESTATE_WEBHOOK_SECRET_KEY');
    await this.poll();
    this.tick = setInterval(() => void this.poll(), this.timing.pollMs);
    this.tick.unref();
  }

  /** A new subscription starts at once here when this instance delivers; else the leader's next tick finds it. */
  add(subscription: Subscription): void {
    if (this.stopped || !this.leadership.leading || this.workers.has(subscription.id)) return;
    if (subscription.secretProblem !== undefined) {
      // Its deliveries wait, queued, until the right key is set: signing with no secret would be worse.
      if (!this.unreadable.has(subscription.id)) this.logger.error({ subscription: subscription.id, problem: subscription.secretProblem }, 'webhook subscription not delivered: its signing secret cannot be opened');
      this.unreadable.add(subscription.id);
      return;
    }
    const worker = new SubscriptionWorker(subscription, this.parts);
    this.workers.set(subscription.id, worker);
    worker.pump();
  }

  async remove(id: string): Promise<void> {
    const worker = this.workers.get(id);
    this.workers.delete(id);
    await worker?.stop();
  }

  /** Registry entries were appended (any audit instance): the workers read past their cursors now. */
  appended(): void {
    if (this.stopped) return;
    for (const worker of this.workers.values()) worker.pump();
  }

  /** A replayed dead letter is due now. */
  wake(id: string): void {
    this.workers.get(id)?.pump();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.tick);
    await this.stopWorkers();
    await this.leadership.release();
  }

  private async stopWorkers(): Promise<void> {
    const workers = [...this.workers.values()];
    this.workers.clear();
    await Promise.all(workers.map((worker) => worker.stop()));
  }

  /** The leader deletes delivered rows past their keep time; pending and dead rows are never pruned. */
  private async prune(subscriptions: Subscription[]): Promise<void> {
    const now = this.parts.now().getTime();
    if (now - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = now;
    const before = new Date(now - this.timing.keepDeliveredMs);
    for (const subscription of subscriptions) {
      const deleted = await this.parts.repo.pruneDelivered(subscription.id, before, PRUNE_BATCH);
      if (deleted > 0) this.logger.debug({ subscription: subscription.id, deleted }, 'delivered webhook rows pruned');
    }
  }

  private async poll(): Promise<void> {
    if (this.polling || this.stopped) return;
    this.polling = true;
    try {
      if (!(await this.leadership.claim())) return await this.stopWorkers();
      const stored = await this.parts.repo.all();
      const ids = new Set(stored.map((subscription) => subscription.id));
      for (const id of this.workers.keys()) if (!ids.has(id)) await this.remove(id);
      for (const subscription of stored) this.add(subscription);
      const seq = await this.trail.lastSeq();
      const grown = seq !== this.lastSeq;
      this.lastSeq = seq;
      for (const worker of this.workers.values()) if (grown || worker.failing) worker.pump();
      await this.prune(stored);
    } catch (error) {
      this.logger.warn({ err: error }, 'webhook dispatcher could not read its state; trying again on the next tick');
    } finally {
      this.polling = false;
    }
  }
}
