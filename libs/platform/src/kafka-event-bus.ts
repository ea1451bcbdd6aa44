import { Kafka, logLevel, Partitioners, type Consumer, type Producer, type LogEntry } from 'kafkajs';
import type { Logger } from 'pino';
import { withDeadline } from './bounded-stop';
import type { BusMessage, EventBus, OutgoingMessage, PartitionOffsets, SubscribeOptions, Subscription, TopicSpec } from './event-bus.port';

export interface KafkaBusOptions {
  brokers: string[];
  clientId: string;
  logger: Logger;
}

const DISCONNECT_MS = 2000;

/** kafkajs reports every retried broker hiccup as an error; our handlers surface real failures. */
const KAFKA_LOG_LEVEL: Record<number, 'error' | 'warn' | 'info' | 'debug'> = {
  [logLevel.ERROR]: 'warn',
  [logLevel.WARN]: 'warn',
  [logLevel.INFO]: 'info',
  [logLevel.DEBUG]: 'debug',
};

/** The event bus on Kafka through kafkajs: an idempotent producer and one consumer per subscription. */
export class KafkaEventBus implements EventBus {
  private readonly kafka: Kafka;
  private producer?: Promise<Producer>;
  private readonly consumers = new Set<Consumer>();
  private readonly log: Logger;

  constructor(options: KafkaBusOptions) {
    const log = options.logger.child({ component: 'kafkajs' });
    this.log = log;
    this.kafka = new Kafka({
      clientId: options.clientId,
      brokers: options.brokers,
      logLevel: logLevel.WARN,
      retry: { retries: 8, initialRetryTime: 100 },
      logCreator: () => (entry: LogEntry) => {
        const { message, ...rest } = entry.log;
        if (message.startsWith('Limiting retries for the idempotent producer')) return;
        log[KAFKA_LOG_LEVEL[entry.level] ?? 'info']({ namespace: entry.namespace, ...rest }, message);
      },
    });
  }

  async ensureTopics(topics: TopicSpec[]): Promise<void> {
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      const existing = new Set(await admin.listTopics());
      const missing = topics.filter((t) => !existing.has(t.name));
      if (missing.length === 0) return;
      await admin.createTopics({
        waitForLeaders: true,
        topics: missing.map((t) => ({
          topic: t.name,
          numPartitions: t.partitions ?? 1,
          replicationFactor: -1,
          configEntries: t.compacted ? [{ name: 'cleanup.policy', value: 'compact' }] : [],
        })),
      });
    } finally {
      await admin.disconnect();
    }
  }

  async publish(topic: string, messages: OutgoingMessage[]): Promise<void> {
    if (messages.length === 0) return;
    const producer = await this.getProducer();
    await producer.send({
      topic,
      acks: -1,
      messages: messages.map((m) => ({ key: m.key, value: m.value, headers: m.headers })),
    });
  }

  async subscribe(options: SubscribeOptions): Promise<Subscription> {
    const consumer = this.kafka.consumer({
      groupId: options.groupId,
      sessionTimeout: 10000,
      heartbeatInterval: 1000,
      maxWaitTimeInMs: 100,
      allowAutoTopicCreation: false,
    });
    await consumer.connect();
    await consumer.subscribe({ topic: options.topic, fromBeginning: options.fromBeginning });
    const ownOffsets = options.ownOffsets;
    if (ownOffsets) this.seekOnJoin(consumer, options.topic, ownOffsets);
    await consumer.run({
      autoCommit: !ownOffsets,
      eachMessage: async ({ topic, partition, message }) => {
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(message.headers ?? {})) if (v !== undefined) headers[k] = String(v);
        const busMessage: BusMessage = {
          topic,
          partition,
          offset: message.offset,
          key: message.key ? message.key.toString('utf8') : null,
          value: message.value ? message.value.toString('utf8') : null,
          headers,
        };
        await options.handle(busMessage);
      },
    });
    this.consumers.add(consumer);
    return {
      stop: async () => {
        this.consumers.delete(consumer);
        await this.disconnect(consumer, options.groupId);
      },
    };
  }

  async offsets(topic: string): Promise<PartitionOffsets[]> {
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      const offsets = await admin.fetchTopicOffsets(topic);
      return offsets
        .map((o) => ({ partition: o.partition, low: o.low, high: o.high }))
        .sort((a, b) => a.partition - b.partition);
    } finally {
      await admin.disconnect();
    }
  }

  async committed(groupId: string, topic: string): Promise<Map<number, string>> {
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      const [found] = await admin.fetchOffsets({ groupId, topics: [topic] });
      // Kafka answers -1 for a partition the group never committed.
      return new Map((found?.partitions ?? []).filter((p) => BigInt(p.offset) >= 0n).map((p) => [p.partition, p.offset]));
    } finally {
      await admin.disconnect();
    }
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.consumers].map((c) => this.disconnect(c, 'consumer')));
    this.consumers.clear();
    if (this.producer) await this.disconnect(await this.producer, 'producer');
  }

  /**
   * A consumer that is joining or rebalancing leaves its group only when the round ends, which
   * can take as long as the session timeout: a stop waits a bounded time, then goes on (the
   * broker drops the member when its session expires).
   */
  private async disconnect(client: Consumer | Producer, what: string): Promise<void> {
    if ((await withDeadline(client.disconnect(), DISCONNECT_MS)) === 'overran') {
      this.log.warn({ client: what, ms: DISCONNECT_MS }, 'kafka client did not disconnect in time; leaving it to the broker');
    }
  }

  /** Consumers that store their position with their state resume from it, not from the broker's. */
  private seekOnJoin(consumer: Consumer, topic: string, ownOffsets: (p: number) => Promise<string | undefined>): void {
    consumer.on(consumer.events.GROUP_JOIN, (event) => {
      const partitions = event.payload.memberAssignment[topic] ?? [];
      for (const partition of partitions) {
        void ownOffsets(partition).then((offset) => {
          if (offset !== undefined) consumer.seek({ topic, partition, offset });
        });
      }
    });
  }

  private getProducer(): Promise<Producer> {
    if (!this.producer) {
      const producer = this.kafka.producer({
        idempotent: true,
        maxInFlightRequests: 1,
        createPartitioner: Partitioners.DefaultPartitioner,
      });
      this.producer = producer.connect().then(() => producer);
    }
    return this.producer;
  }
}
