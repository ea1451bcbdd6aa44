import type { Logger } from 'pino';
import type { BusMessage, EventBus, OutgoingMessage, PartitionOffsets, SubscribeOptions, Subscription, TopicSpec } from '../event-bus.port';
import { PostgresBusConsumer } from './postgres-bus.consumer';
import { PostgresBusListener } from './postgres-bus.listener';
import { PostgresBusLog } from './postgres-bus.log';
import { PostgresBusMembership } from './postgres-bus.membership';

export interface PostgresBusOptions {
  /** The database that holds the log (schema `bus`); every process on it shares the same topics. */
  url: string;
  logger: Logger;
  poolSize?: number;
}

/**
 * The event bus as a durable log in PostgreSQL, with Kafka's semantics for one partition per
 * topic: dense offsets, order, group positions stored with the log, compacted topics keeping the
 * newest message per key. `publish` returns after commit, so an acknowledged message survives a
 * crash. Processes on the same database share the log and wake each other with NOTIFY.
 */
export class PostgresEventBus implements EventBus {
  private log?: Promise<PostgresBusLog>;
  private listener?: PostgresBusListener;
  private membership?: PostgresBusMembership;
  private readonly consumers = new Set<PostgresBusConsumer>();
  private closed = false;

  constructor(private readonly options: PostgresBusOptions) {}

  async ensureTopics(topics: TopicSpec[]): Promise<void> {
    await (await this.open()).ensureTopics(topics);
  }

  async publish(topic: string, messages: OutgoingMessage[]): Promise<void> {
    if (messages.length === 0) return;
    await (await this.open()).append(topic, messages);
    // Local consumers need not wait for the NOTIFY to come back.
    this.wake(topic);
  }

  async subscribe(options: SubscribeOptions): Promise<Subscription> {
    const log = await this.open();
    this.membership ??= new PostgresBusMembership(this.options.url, this.options.logger.child({ component: 'bus' }));
    const consumer = new PostgresBusConsumer(log, this.membership, options, this.options.logger.child({ component: 'bus', group: options.groupId }));
    this.consumers.add(consumer);
    try {
      await consumer.start();
    } catch (error) {
      this.consumers.delete(consumer);
      throw error;
    }
    return {
      stop: async () => {
        this.consumers.delete(consumer);
        await consumer.stop();
      },
    };
  }

  async offsets(topic: string): Promise<PartitionOffsets[]> {
    return (await this.open()).offsets(topic);
  }

  /** The group's committed next offset (one partition per topic), for lag reports before its first message. */
  async committed(groupId: string, topic: string): Promise<Map<number, string>> {
    const next = await (await this.open()).committed(groupId, topic);
    return next === undefined ? new Map() : new Map([[0, next.toString()]]);
  }

  /** The log has one partition per topic; any other partition is empty. */
  async readPage(topic: string, partition: number, offset: string, limit: number): Promise<BusMessage[]> {
    if (partition !== 0) return [];
    return (await this.open()).read(topic, BigInt(offset), limit);
  }

  async close(): Promise<void> {
    this.closed = true;
    const consumers = [...this.consumers];
    this.consumers.clear();
    await Promise.all(consumers.map((c) => c.stop()));
    await this.listener?.close();
    await this.membership?.close();
    if (this.log) await (await this.log.catch(() => undefined))?.close();
  }

  /** Opens the pool and the LISTEN session once, on first use. */
  private open(): Promise<PostgresBusLog> {
    if (this.closed) return Promise.reject(new Error('the event bus is closed'));
    if (!this.log) {
      this.log = (async () => {
        const log = await PostgresBusLog.open(this.options.url, this.options.poolSize ?? 6);
        this.listener = new PostgresBusListener(this.options.url, (topic) => this.wake(topic), this.options.logger.child({ component: 'bus' }));
        await this.listener.start();
        return log;
      })();
      // A failed open is not cached: the next call tries again.
      this.log.catch(() => (this.log = undefined));
    }
    return this.log;
  }

  private wake(topic: string | undefined): void {
    for (const consumer of this.consumers) if (topic === undefined || consumer.options.topic === topic) consumer.wake();
  }
}
