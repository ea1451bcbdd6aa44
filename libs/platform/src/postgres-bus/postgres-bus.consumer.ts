import type { Logger } from 'pino';
import { DEFAULT_MAX_BATCH, type BusMessage, type SubscribeOptions } from '../event-bus.port';
import type { PostgresBusLog } from './postgres-bus.log';
import type { PostgresBusMembership } from './postgres-bus.membership';

const BATCH = 200;
/** The fallback when a NOTIFY is lost (listener reconnecting): how often an idle consumer looks anyway. */
const POLL_MS = 2000;
const RETRY_FIRST_MS = 200;
const RETRY_MAX_MS = 5000;

/**
 * One subscription: reads its topic in offset order and hands each message to the handler, one at
 * a time (or each page read to a batch handler). A group's position is committed after the handler succeeded; a failing handler is
 * retried after a growing pause and its message is never skipped, as a Kafka consumer would.
 * Only one member of a group reads a topic at a time (postgres-bus.membership.ts).
 */
export class PostgresBusConsumer {
  private stopped = false;
  private sleeping?: { done: () => void; wakeable: boolean };
  private woken = false;
  private loop?: Promise<void>;

  constructor(
    private readonly log: PostgresBusLog,
    private readonly membership: PostgresBusMembership,
    readonly options: SubscribeOptions,
    private readonly logger: Logger,
  ) {}

  /**
   * Joins the group: as its member it reads from its start position at once (errors reach the
   * subscriber); otherwise it stands by until the member leaves.
   */
  async start(): Promise<void> {
    let next: bigint | undefined;
    try {
      next = (await this.membership.claim(this, this.options.groupId, this.options.topic)) ? await this.position() : undefined;
    } catch (error) {
      await this.membership.release(this, this.options.groupId, this.options.topic);
      throw error;
    }
    this.loop = this.run(next);
  }

  /** Something was published to this topic: look now rather than at the next poll. */
  wake(): void {
    this.woken = true;
    if (this.sleeping?.wakeable) this.sleeping.done();
  }

  /** Waits for the message in hand, if any, then reads no more. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.sleeping?.done();
    await this.loop;
  }

  /** Own offsets, else the group's committed position, else the log's start or end. Read on every (re)join, as Kafka seeks on a group join. */
  private async position(): Promise<bigint> {
    const own = this.options.ownOffsets ? await this.options.ownOffsets(0) : undefined;
    if (own !== undefined) return BigInt(own);
    const committed = await this.log.committed(this.options.groupId, this.options.topic);
    if (committed !== undefined) return committed;
    if (this.options.fromBeginning) return 0n;
    const [{ high }] = await this.log.offsets(this.options.topic);
    return BigInt(high);
  }

  private async run(start: bigint | undefined): Promise<void> {
    try {
      await this.consume(start);
    } finally {
      await this.membership.release(this, this.options.groupId, this.options.topic);
    }
  }

  private async consume(start: bigint | undefined): Promise<void> {
    let next = start;
    let failing = false;
    while (!this.stopped) {
      this.woken = false;
      let batch;
      try {
        if (next === undefined || !this.membership.holds(this, this.options.groupId, this.options.topic)) {
          next = await this.join();
          if (next === undefined) continue;
        }
        batch = await this.log.read(this.options.topic, next, this.readSize);
      } catch (error) {
        if (this.stopped) return;
        // Once per outage (the database restarting, say), not once per attempt.
        if (!failing) this.logger.warn({ err: error, topic: this.options.topic }, 'bus read failed; retrying until the database answers');
        failing = true;
        // Wakeable: the listener wakes every consumer when its session is back.
        await this.sleep(RETRY_MAX_MS);
        continue;
      }
      failing = false;
      if (this.options.handleBatch && batch.length > 0) {
        if (!this.membership.holds(this, this.options.groupId, this.options.topic)) continue;
        if (!(await this.deliverBatch(batch))) return;
        next = BigInt(batch[batch.length - 1].offset) + 1n;
        if (!this.options.ownOffsets) await this.commit(next);
      } else for (const message of batch) {
        // Membership lost with the session: another member may already read from the committed position.
        if (!this.membership.holds(this, this.options.groupId, this.options.topic)) break;
        if (!(await this.deliver(message))) return;
        next = BigInt(message.offset) + 1n;
        if (!this.options.ownOffsets) await this.commit(next);
      }
      if (batch.length < this.readSize && !this.woken) await this.sleep(POLL_MS);
    }
  }

  /** A standby asks again after a pause; undefined while another member holds the group. */
  private async join(): Promise<bigint | undefined> {
    if (await this.membership.claim(this, this.options.groupId, this.options.topic)) return this.position();
    await this.sleep(POLL_MS, false);
    return undefined;
  }

  /** A batch subscriber reads as many as it takes per call; one page of the log otherwise. */
  private get readSize(): number {
    return this.options.handleBatch ? this.options.maxBatch ?? DEFAULT_MAX_BATCH : BATCH;
  }

  /** Runs the handler until it succeeds; false when the consumer stopped first. */
  private deliver(message: BusMessage): Promise<boolean> {
    return this.retrying(message, () => this.options.handle(message));
  }

  /** The whole batch again on failure, as Kafka fetches again from the last resolved offset. */
  private deliverBatch(messages: BusMessage[]): Promise<boolean> {
    const batch = { topic: this.options.topic, partition: 0, messages };
    return this.retrying(messages[0], () => (this.options.handleBatch as NonNullable<SubscribeOptions['handleBatch']>)(batch));
  }

  private async retrying(first: BusMessage, work: () => Promise<void>): Promise<boolean> {
    let pause = RETRY_FIRST_MS;
    for (;;) {
      if (this.stopped) return false;
      try {
        await work();
        return true;
      } catch (error) {
        this.logger.warn({ err: error, topic: first.topic, offset: first.offset, group: this.options.groupId }, 'handler failed; retrying the same messages');
        // Not cut short by new messages: a failing handler gets its full pause.
        await this.sleep(pause, false);
        pause = Math.min(pause * 2, RETRY_MAX_MS);
      }
    }
  }

  /** A lost commit only means the message comes again after a restart (at-least-once), so it is retried, not fatal. */
  private async commit(next: bigint): Promise<void> {
    for (let attempt = 0; ; attempt += 1) {
      try {
        await this.log.commit(this.options.groupId, this.options.topic, next);
        return;
      } catch (error) {
        if (this.stopped || attempt >= 5) {
          this.logger.warn({ err: error, group: this.options.groupId, topic: this.options.topic }, 'could not commit the group position');
          return;
        }
        await this.sleep(RETRY_FIRST_MS);
      }
    }
  }

  private sleep(ms: number, wakeable = true): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.sleeping = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.sleeping = { done, wakeable };
    });
  }
}
