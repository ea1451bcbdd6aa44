import type { MessageHandler } from '@nestjs/microservices';
import type { QueryRunner } from 'typeorm';
import { poisonReason } from '../consumer/poison.classifier';
import { inTransaction } from '../database';
import type { BusBatch, BusMessage, EventBus, Subscription } from '../event-bus.port';
import { judgePosition, messageEventId, type StoredPosition } from '../log-position';
import type { Logger } from '../logger';
import { SerialQueue } from '../serial-queue';
import { invokeBatch } from './batch.invoker';
import type { BatchPosition } from './bus.context';
import type { BusBinding, TransactionalBinding } from './bus.binding';

const AFTER_COMMIT_RETRY_MS = 500;

/**
 * One subscription of a consumer that keeps its own positions. On every group join it judges the
 * stored position against the log (log-position.ts) and seeks there; each batch is applied by the
 * handler and its position written in one transaction committed here; a message that can never
 * apply is dead-lettered with its position, alone, after its batch failed for it.
 */
export class TransactionalSubscription {
  private readonly queue = new SerialQueue();
  private subscription?: Subscription;
  /** Per partition: the offset whose message must be the event applied last (first batch after a join). */
  private readonly expected = new Map<number, { offset: string; id: string }>();
  /**
   * Per partition: the position this subscription committed last, so a batch does not read it back
   * from the database first. Only this member writes a partition's position while it holds it; every
   * group join forgets them all (a partition may have been another member's meanwhile), and so does
   * a failed transaction (its commit may have happened after all).
   */
  private readonly stored = new Map<number, StoredPosition | undefined>();
  private restarting = false;
  private stopped = false;
  /** With readAhead: the batch being applied while the bus fetches the next; it never rejects. */
  private applying: Promise<void> = Promise.resolve();

  constructor(
    private readonly bus: EventBus,
    private readonly binding: BusBinding & { transactional: TransactionalBinding },
    private readonly handler: MessageHandler,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    const { topic, groupId, maxBatch } = this.binding;
    this.subscription = await this.bus.subscribe({
      topic,
      groupId,
      fromBeginning: this.binding.fromBeginning ?? true,
      maxBatch,
      ownOffsets: (partition) => this.queue.run(() => this.startAt(partition)),
      handle: (message) => this.queue.run(() => this.receive({ topic, partition: message.partition, messages: [message] })),
      handleBatch: this.tx.readAhead ? (batch) => this.behind(batch) : (batch) => this.queue.run(() => this.receive(batch)),
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.subscription?.stop();
    await this.applying;
  }

  /**
   * readAhead: the batch is handed back to the bus as taken once the one before it is applied, and
   * is applied while the bus fetches and decodes the next, so the two overlap instead of taking
   * turns. The bus has then moved past a batch that may still fail: a failure starts the
   * subscription over, which seeks to the stored position, so nothing is skipped.
   */
  private async behind(batch: BusBatch): Promise<void> {
    await this.applying;
    if (this.restarting || this.stopped) return;
    this.applying = this.queue.run(() => this.receive(batch)).catch((error: unknown) => {
      if (this.stopped) return;
      this.logger.warn({ err: error, topic: this.binding.topic, partition: batch.partition }, 'a batch failed after the bus moved past it; reading again from the stored position');
      this.resubscribe();
    });
  }

  private get tx(): TransactionalBinding {
    return this.binding.transactional;
  }

  private async startAt(partition: number): Promise<string> {
    const { topic } = this.binding;
    this.stored.clear();
    const log = (await this.bus.offsets(topic)).find((p) => p.partition === partition);
    const verdict = judgePosition(await this.tx.positions.get(topic, partition), log);
    this.expected.delete(partition);
    if (verdict.kind === 'verify') this.expected.set(partition, { offset: verdict.startAt, id: verdict.expectId });
    if (verdict.kind === 'lost') await this.startOver(partition, verdict.startAt, verdict.reason, verdict.unread);
    return verdict.startAt;
  }

  private async receive(batch: BusBatch): Promise<void> {
    if (this.restarting) return;
    let messages = batch.messages;
    const expected = this.expected.get(batch.partition);
    this.expected.delete(batch.partition);
    if (expected !== undefined && expected.offset === messages[0].offset) {
      const found = messageEventId(messages[0]);
      if (found !== expected.id) {
        await this.startOver(batch.partition, '0', `offset ${expected.offset} holds event ${found ?? '(no id)'}, not ${expected.id}: the log was recreated`, false);
        this.resubscribe();
        return;
      }
      messages = messages.slice(1); // the same log: the event applied last, still in its place
    }
    messages = await this.unapplied(batch.partition, messages);
    if (messages.length > 0) await this.apply(messages);
  }

  /**
   * Drops what the stored position says was applied (a batch delivered again after its commit).
   * Messages below the position that are not such a redelivery mean the bus went back by itself
   * (our position fell off the log): said once, then applied from there; what was applied before
   * changes nothing, since every consumer applies an event at most once (stream positions, event ids).
   */
  private async unapplied(partition: number, messages: BusMessage[]): Promise<BusMessage[]> {
    if (messages.length === 0) return messages;
    const stored = await this.position(partition);
    if (stored === undefined || BigInt(messages[0].offset) >= BigInt(stored.next)) return messages;
    const lastApplied = messages.find((m) => BigInt(m.offset) + 1n === BigInt(stored.next));
    if (lastApplied !== undefined && messageEventId(lastApplied) === stored.lastEventId) return messages.filter((m) => BigInt(m.offset) >= BigInt(stored.next));
    await this.startOver(partition, messages[0].offset, `the bus restarted at offset ${messages[0].offset}, below the stored position ${stored.next}`, false);
    return messages;
  }

  private async position(partition: number): Promise<StoredPosition | undefined> {
    if (this.stored.has(partition)) return this.stored.get(partition);
    const stored = await this.tx.positions.get(this.binding.topic, partition);
    this.stored.set(partition, stored);
    return stored;
  }

  /**
   * Writes a position in `work`'s transaction (unless the handler wrote it itself, see
   * BusContext.positionStored); remembered once it committed, forgotten if the transaction failed.
   */
  private async withPosition<T>(partition: number, position: StoredPosition, work: (runner: QueryRunner, batch: BatchPosition) => Promise<T>): Promise<T> {
    this.stored.delete(partition);
    const result = await this.inTransaction(async (runner) => {
      const batch: BatchPosition = { position, storedByHandler: false };
      const value = await work(runner, batch);
      if (!batch.storedByHandler) await this.tx.positions.set(runner, this.binding.topic, partition, position);
      return value;
    });
    this.stored.set(partition, position);
    return result;
  }

  /** The batch in one transaction; when it fails for a message's content, each message alone, so only that one is dead-lettered. */
  private async apply(messages: BusMessage[]): Promise<void> {
    let afterCommit: Array<() => Promise<void>>;
    try {
      const last = messages[messages.length - 1];
      afterCommit = await this.withPosition(last.partition, positionAfter(last), (runner, position) =>
        invokeBatch(this.handler, messages, runner, this.binding.spanName ?? `consume ${this.binding.topic}`, position));
    } catch (error) {
      const reason = poisonReason(error, this.tx.deadLetters.dedupeConstraints);
      if (reason === undefined) throw error;
      if (messages.length > 1) {
        for (const message of messages) await this.apply([message]);
        return;
      }
      return this.deadLetter(messages[0], reason);
    }
    for (const work of afterCommit) await this.untilDone(work);
  }

  private async deadLetter(message: BusMessage, reason: string): Promise<void> {
    const sink = this.tx.deadLetters;
    const record = sink.office.record(sink.consumer, message, reason);
    await this.withPosition(message.partition, positionAfter(message), (runner) => sink.store(runner, record));
    await sink.office.send(record);
  }

  /** The batch is committed: its follow-up (a publish) is retried in place rather than lost. */
  private async untilDone(work: () => Promise<void>): Promise<void> {
    for (let attempt = 1; !this.stopped; attempt += 1) {
      try {
        return await work();
      } catch (error) {
        this.logger.warn({ err: error, topic: this.binding.topic, attempt }, 'work after a committed batch failed; retrying');
        await new Promise((resolve) => setTimeout(resolve, Math.min(5000, AFTER_COMMIT_RETRY_MS * attempt)));
      }
    }
  }

  private async startOver(partition: number, startAt: string, reason: string, unread: boolean): Promise<void> {
    const { topic } = this.binding;
    await this.withPosition(partition, { next: startAt, lastEventId: null }, async () => undefined);
    await this.tx.onLogLost({ topic, partition, startAt, reason, unread });
  }

  /** Our consumer stands past offsets it must read again: a new subscription seeks to the reset position. */
  private resubscribe(): void {
    this.restarting = true;
    setImmediate(() => {
      void (async () => {
        await this.subscription?.stop();
        this.restarting = false;
        if (!this.stopped) await this.start();
      })().catch((error: unknown) => {
        this.logger.error({ err: error, topic: this.binding.topic }, 'could not resubscribe to a log; retrying');
        setTimeout(() => this.resubscribe(), 1000);
      });
    });
  }

  private inTransaction<T>(work: (runner: QueryRunner) => Promise<T>): Promise<T> {
    return inTransaction(this.tx.db, work);
  }
}

function positionAfter(last: BusMessage): StoredPosition {
  return { next: String(BigInt(last.offset) + 1n), lastEventId: messageEventId(last) };
}
