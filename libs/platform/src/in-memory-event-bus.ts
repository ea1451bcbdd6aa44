import type { BusMessage, EventBus, OutgoingMessage, PartitionOffsets, SubscribeOptions, Subscription, TopicSpec } from './event-bus.port';

interface Consumer {
  options: SubscribeOptions;
  next: number;
  running: boolean;
  stopped: boolean;
}

/**
 * An in-process log with Kafka's ordering and offset semantics (one partition per topic), for
 * tests; the embedded mode keeps its log in PostgreSQL (postgres-event-bus.ts). Consumer groups
 * remember their position while the process lives; consumers that keep their own offsets seek to
 * them on subscribe.
 */
export class InMemoryEventBus implements EventBus {
  private readonly topics = new Map<string, BusMessage[]>();
  private readonly groupOffsets = new Map<string, number>();
  private readonly consumers = new Set<Consumer>();

  async ensureTopics(topics: TopicSpec[]): Promise<void> {
    for (const topic of topics) this.log(topic.name);
  }

  async publish(topic: string, messages: OutgoingMessage[]): Promise<void> {
    const log = this.log(topic);
    for (const message of messages) {
      log.push({
        topic,
        partition: 0,
        offset: String(log.length),
        key: message.key,
        value: message.value,
        headers: message.headers ?? {},
      });
    }
    for (const consumer of this.consumers) if (consumer.options.topic === topic) this.pump(consumer);
  }

  async subscribe(options: SubscribeOptions): Promise<Subscription> {
    const own = options.ownOffsets ? await options.ownOffsets(0) : undefined;
    const committed = this.groupOffsets.get(`${options.groupId}/${options.topic}`);
    const start = own !== undefined ? Number(own) : committed ?? (options.fromBeginning ? 0 : this.log(options.topic).length);
    const consumer: Consumer = { options, next: start, running: false, stopped: false };
    this.consumers.add(consumer);
    this.pump(consumer);
    return {
      stop: async () => {
        consumer.stopped = true;
        this.consumers.delete(consumer);
      },
    };
  }

  async offsets(topic: string): Promise<PartitionOffsets[]> {
    return [{ partition: 0, low: '0', high: String(this.log(topic).length) }];
  }

  async committed(groupId: string, topic: string): Promise<Map<number, string>> {
    const next = this.groupOffsets.get(`${groupId}/${topic}`);
    return new Map(next === undefined ? [] : [[0, String(next)]]);
  }

  async readPage(topic: string, partition: number, offset: string, limit: number): Promise<BusMessage[]> {
    return partition === 0 ? this.log(topic).slice(Number(offset), Number(offset) + limit) : [];
  }

  async close(): Promise<void> {
    for (const consumer of this.consumers) consumer.stopped = true;
    this.consumers.clear();
  }

  private log(topic: string): BusMessage[] {
    let log = this.topics.get(topic);
    if (!log) {
      log = [];
      this.topics.set(topic, log);
    }
    return log;
  }

  private pump(consumer: Consumer): void {
    if (consumer.running || consumer.stopped) return;
    consumer.running = true;
    void this.drain(consumer).finally(() => {
      consumer.running = false;
      if (!consumer.stopped && consumer.next < this.log(consumer.options.topic).length) this.pump(consumer);
    });
  }

  private async drain(consumer: Consumer): Promise<void> {
    const log = this.log(consumer.options.topic);
    while (!consumer.stopped && consumer.next < log.length) {
      const message = log[consumer.next];
      try {
        await consumer.options.handle(message);
      } catch {
        // Like a Kafka consumer that crashes on a message: retry it after a pause, never skip it.
        await new Promise((resolve) => setTimeout(resolve, 200));
        continue;
      }
      consumer.next += 1;
      if (!consumer.options.ownOffsets) {
        this.groupOffsets.set(`${consumer.options.groupId}/${consumer.options.topic}`, consumer.next);
      }
    }
  }
}
