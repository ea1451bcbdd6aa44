import type { Logger } from '@estate/platform';
import type { AuditRepository } from '../store/audit.repository';
import { SubscriptionWorker, type DeliveryOutcome, type WorkerParts } from './subscription.worker';
import type { Subscription } from './webhook.repository';

/**
 * One worker per subscription, so a slow or dead receiver holds up only its own queue. A tick
 * every `pollMs` wakes the workers when the trail has grown (one query for all of them) and
 * retries workers whose last drain failed; backoff waits are each worker's own timer.
 */
export class WebhookDispatcher {
  private readonly workers = new Map<string, SubscriptionWorker>();
  private readonly outcomes = new Map<DeliveryOutcome, number>([['delivered', 0], ['failed', 0], ['dead', 0]]);
  private tick?: NodeJS.Timeout;
  private lastSeq = -1;
  private readonly parts: WorkerParts;

  constructor(
    parts: Omit<WorkerParts, 'counted'>,
    private readonly trail: AuditRepository,
    private readonly pollMs: number,
    private readonly logger: Logger,
  ) {
    this.parts = { ...parts, counted: (outcome) => this.outcomes.set(outcome, (this.outcomes.get(outcome) ?? 0) + 1) };
  }

  /** Deliveries by outcome since the process started (the metrics read this). */
  get counts(): ReadonlyMap<DeliveryOutcome, number> {
    return this.outcomes;
  }

  async start(): Promise<void> {
    for (const subscription of await this.parts.repo.all()) this.add(subscription);
    this.tick = setInterval(() => void this.poll(), this.pollMs);
    this.tick.unref();
  }

  add(subscription: Subscription): void {
    const worker = new SubscriptionWorker(subscription, this.parts);
    this.workers.set(subscription.id, worker);
    worker.pump();
  }

  async remove(id: string): Promise<void> {
    const worker = this.workers.get(id);
    this.workers.delete(id);
    await worker?.stop();
  }

  /** A replayed dead letter is due now. */
  wake(id: string): void {
    this.workers.get(id)?.pump();
  }

  async stop(): Promise<void> {
    clearInterval(this.tick);
    const workers = [...this.workers.values()];
    this.workers.clear();
    await Promise.all(workers.map((worker) => worker.stop()));
  }

  private async poll(): Promise<void> {
    try {
      const seq = await this.trail.lastSeq();
      const grown = seq !== this.lastSeq;
      this.lastSeq = seq;
      for (const worker of this.workers.values()) if (grown || worker.failing) worker.pump();
    } catch (error) {
      this.logger.warn({ err: error }, 'webhook dispatcher could not read the trail head; trying again on the next tick');
    }
  }
}
