import { Kafka, logLevel, Partitioners, type Admin, type Consumer, type Producer, type LogEntry } from 'kafkajs';
import type { Logger } from 'pino';
import { withDeadline } from './bounded-stop';
import { MessageRefused, type BusMessage, type EventBus, type OutgoingMessage, type PartitionOffsets, type SubscribeOptions, type Subscription, type TopicSpec } from './event-bus.port';
import { eachBatchHandler, toBusMessage } from './kafka-batch.handler';
import { KafkaAdminQueue } from './kafka-admin.queue';
import { KafkaPageReader } from './kafka-page.reader';
import { fixKafkaRequestQueue } from './kafka-request-queue.fix';
import { correctTopicConfigs, declaredConfig } from './kafka-topic.configs';

export interface KafkaBusOptions {
  brokers: string[];
  clientId: string;
  logger: Logger;
}

fixKafkaRequestQueue();

const DISCONNECT_MS = 2000;
/** How long the broker may hold an empty fetch (see subscribeOnce). */
const FETCH_WAIT_MS = 1000;
const BATCH_FETCH_BYTES = 4 * 1024 * 1024;

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
  /** One producer per patience (see BRIEF_RETRY): kafkajs's retry budget is set per producer. */
  private readonly producers = new Map<SendPatience, Promise<Producer>>();
  /** Topic creation, configuration and listing. */
  private readonly admin: KafkaAdminQueue;
  /**
   * Offsets, asked for every few seconds (the relay, the consumers, health), by an admin of their
   * own that gives up as soon as a send does (BRIEF_RETRY): kafkajs asks a topic deleted under a read
   * for its offsets again for about 20 s, and the relay, waiting on that answer, would not notice
   * the loss (and refill the log) until then.
   */
  private readonly offsetsAdmin: KafkaAdminQueue;
  /** Offsets being read, per topic: callers asking at the same time share one read. */
  private readonly offsetReads = new Map<string, Promise<PartitionOffsets[]>>();
  private readonly logger: Logger;
  /** Declared specs, so a topic lost with a broker's data comes back with its configuration, never a default one. */
  private readonly specs = new Map<string, TopicSpec>();
  /** Running consumers, each with the flag that tells kafkajs not to restart it once stopped. */
  private readonly consumers = new Map<Consumer, ConsumerState>();
  private consumersStopped = false;
  private readonly log: Logger;
  private readonly brokers: string[];
  private readonly pages?: KafkaPageReader;
  /** Absent (a rebuild subscribes instead) only if kafkajs no longer makes the cluster the page reader needs. */
  readonly readPage?: (topic: string, partition: number, offset: string, limit: number) => Promise<BusMessage[]>;

  constructor(options: KafkaBusOptions) {
    this.logger = options.logger;
    this.brokers = options.brokers;
    const log = options.logger.child({ component: 'kafkajs' });
    this.log = log;
    this.kafka = new Kafka({
      clientId: options.clientId,
      brokers: options.brokers,
      logLevel: logLevel.WARN,
      // Capped backoff: after a broker outage clients reconnect within seconds, not half a minute.
      retry: { retries: 8, initialRetryTime: 100, maxRetryTime: 5000 },
      logCreator: () => (entry: LogEntry) => {
        const { message, ...rest } = entry.log;
        if (message.startsWith('Limiting retries for the idempotent producer')) return;
        log[KAFKA_LOG_LEVEL[entry.level] ?? 'info']({ namespace: entry.namespace, ...rest }, message);
      },
    });
    this.admin = new KafkaAdminQueue(this.kafka);
    this.offsetsAdmin = new KafkaAdminQueue(this.kafka, BRIEF_RETRY);
    if (KafkaPageReader.supports(this.kafka)) {
      const pages = new KafkaPageReader(this.kafka);
      this.pages = pages;
      this.readPage = (topic, partition, offset, limit) => pages.read(topic, partition, offset, limit);
    }
  }

  /** Creates missing topics with their declared configuration and corrects the configuration of existing ones. */
  async ensureTopics(topics: TopicSpec[]): Promise<void> {
    for (const topic of topics) this.specs.set(topic.name, topic);
    // The first thing every service asks of the broker at start: a broker never reached is said in
    // the setting's own terms, not only as the last of kafkajs's retry lines.
    await this.admin.run(async (admin) => {
      const existing = new Set(await admin.listTopics());
      const missing = topics.filter((t) => !existing.has(t.name));
      if (missing.length > 0) {
        await admin.createTopics({
          waitForLeaders: true,
          topics: missing.map((t) => ({
            topic: t.name,
            numPartitions: t.partitions ?? 1,
            replicationFactor: -1,
            configEntries: Object.entries(declaredConfig(t)).map(([name, value]) => ({ name, value })),
          })),
        });
      }
      await correctTopicConfigs(admin, topics.filter((t) => existing.has(t.name)), this.logger);
    }).catch((error: unknown) => {
      const reason = neverReached(error);
      if (reason === undefined) throw error;
      throw new Error(`no Kafka broker answered at KAFKA_BROKERS=${this.brokers.join(',')} (${reason}): start one there, correct KAFKA_BROKERS, or leave it empty for the in-process bus`, { cause: error });
    });
  }

  async publish(topic: string, messages: OutgoingMessage[]): Promise<void> {
    if (messages.length === 0) return;
    const patience: SendPatience = this.specs.get(topic)?.recreate === false ? 'brief' : 'patient';
    let producer = await this.getProducer(patience);
    const send = () => producer.send({
      topic,
      acks: -1,
      messages: messages.map((m) => ({ key: m.key, value: m.value, headers: m.headers })),
    });
    try {
      await send();
    } catch (error) {
      const lost = errorType(error, PRODUCER_STATE_LOST);
      if (lost) {
        // An idempotent producer whose sequence the broker lost (a broker restarted or wiped) is
        // refused for ever after (kafkajs does not start a new sequence): a new producer, with a new
        // id, sends the batch again. The broker took nothing of it, so nothing is sent twice.
        this.logger.warn({ topic, refusal: lost }, 'the broker no longer knows this producer (a restart lost its state); sending again from a new one');
        this.dropProducer(patience);
        producer = await this.getProducer(patience);
        await send();
        return;
      }
      const refusal = errorType(error, SIZE_REFUSALS);
      if (refusal) throw new MessageRefused(`${topic} refused the batch (${refusal}): a message is larger than the topic's max.message.bytes`, { cause: error });
      // The producer never creates topics (they would get the broker's defaults): a declared topic
      // that vanished (a broker's data was lost) is created again with its spec, then sent to once more.
      const spec = this.specs.get(topic);
      if (!spec || spec.recreate === false || (await this.admin.run((admin) => admin.listTopics())).includes(topic)) throw error;
      this.logger.warn({ topic }, `topic ${topic} no longer exists; creating it again with its declared configuration`);
      await this.ensureTopics([spec]);
      await send();
    }
  }

  /**
   * A topic created moments before (ensureTopics just now, by this process or another) may not be
   * hosted by its leader yet: kafkajs reports "does not host this topic-partition" as retriable.
   * Every consumer gets the same patience: up to 20 tries, 500 ms apart, before the start fails.
   */
  async subscribe(options: SubscribeOptions): Promise<Subscription> {
    for (let left = 20; ; left -= 1) {
      if (this.consumersStopped) throw new Error(`the bus is stopping: no new subscription to ${options.topic}`);
      try {
        return await this.subscribeOnce(options);
      } catch (error) {
        if (left === 0 || (error as { retriable?: boolean }).retriable !== true) throw error;
        this.logger.debug({ err: error, topic: options.topic }, 'subscribing again after a retriable error');
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  }

  private async subscribeOnce(options: SubscribeOptions): Promise<Subscription> {
    const state: ConsumerState = { stopped: false };
    const consumer = this.kafka.consumer({
      groupId: options.groupId,
      // kafkajs restarts a crashed consumer on a timer, and a stop that lands while the consumer is
      // (re)joining cannot cancel the restart its failure then schedules: the stopped consumer
      // would join its group again once the broker is back, and take partitions from the live one.
      // (retries: kafkajs's own default for consumers, which a retry option given here replaces.)
      retry: { retries: 5, restartOnFailure: async () => !state.stopped },
      // Not the broker's least (6 s): a member that died without leaving holds its group's rejoin
      // for the whole session (measured: 10 s after a broker restart against 0.2–4.4 s with 6 s),
      // but 6 s sessions expired in CI while a 1 MB contract held the event loop, and a member
      // evicted that way gets its uncommitted messages again.
      sessionTimeout: 10000,
      heartbeatInterval: 1000,
      // A long poll: the broker answers a fetch the moment one byte arrives (minBytes 1), so the
      // wait costs no latency, only idle work (an idle consumer asks once a second, not ten times).
      // Kept under DISCONNECT_MS: a disconnect waits for the fetch in flight.
      maxWaitTimeInMs: FETCH_WAIT_MS,
      minBytes: 1,
      // A batch subscriber gets fetches as large as its batches (one transaction each); 1 MB, kafkajs's default, holds ~2,500 call records.
      ...(options.handleBatch ? { maxBytesPerPartition: BATCH_FETCH_BYTES, maxBytes: 2 * BATCH_FETCH_BYTES } : {}),
      allowAutoTopicCreation: false,
    });
    this.recreateOnCrash(consumer, options.topic);
    try {
      await consumer.connect();
      await consumer.subscribe({ topic: options.topic, fromBeginning: options.fromBeginning });
      return await this.run(consumer, options, state);
    } catch (error) {
      // Bounded like any stop: with the broker away, a bare disconnect could wait on a join round.
      await this.leave(consumer, state, options.groupId).catch(() => undefined);
      throw error;
    }
  }

  private async run(consumer: Consumer, options: SubscribeOptions, state: ConsumerState): Promise<Subscription> {
    const ownOffsets = options.ownOffsets;
    const seeking = new Set<number>();
    if (ownOffsets) this.seekOnJoin(consumer, options, ownOffsets, seeking, state);
    await consumer.run(options.handleBatch
      ? { autoCommit: !ownOffsets, eachBatchAutoResolve: false, eachBatch: eachBatchHandler(options, seeking) }
      : {
        autoCommit: !ownOffsets,
        eachMessage: async ({ topic, partition, message }) => {
          if (seeking.has(partition)) return;
          await options.handle(toBusMessage(topic, partition, message));
        },
      });
    this.consumers.set(consumer, state);
    return {
      stop: async () => {
        this.consumers.delete(consumer);
        await this.leave(consumer, state, options.groupId);
      },
    };
  }

  /** Stops a consumer once: a second stop (the bus's, then the subscription's) waits for the same leave, not a new one. */
  private leave(consumer: Consumer, state: ConsumerState, what: string): Promise<void> {
    state.stopped = true;
    state.leaving ??= this.disconnect(consumer, what);
    return state.leaving;
  }

  async offsets(topic: string): Promise<PartitionOffsets[]> {
    const reading = this.offsetReads.get(topic);
    if (reading) return reading;
    const read = this.offsetsAdmin.run(async (admin) => {
      // Asking for a missing topic's offsets would retry for a long while before failing. The
      // metadata of this one topic says whether it exists at once; listTopics would fetch and decode
      // every topic of the cluster (tens of ms on a broker with thousands), on every relay send.
      if (!(await topicExists(admin, topic))) return [];
      const offsets = await admin.fetchTopicOffsets(topic);
      return offsets
        .map((o) => ({ partition: o.partition, low: o.low, high: o.high }))
        .sort((a, b) => a.partition - b.partition);
    }).finally(() => this.offsetReads.delete(topic));
    this.offsetReads.set(topic, read);
    return read;
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

  async stopConsumers(): Promise<void> {
    this.consumersStopped = true;
    const running = [...this.consumers];
    this.consumers.clear();
    await Promise.allSettled(running.map(([consumer, state]) => this.leave(consumer, state, 'consumer')));
  }

  async close(): Promise<void> {
    await this.stopConsumers();
    // At once, each bounded: with the broker away every one of them waits out its deadline.
    const producers = [...this.producers.values()];
    const admins = [this.admin.current, this.offsetsAdmin.current];
    await Promise.allSettled([
      withDeadline(this.pages?.close() ?? Promise.resolve(), DISCONNECT_MS),
      // One that could not connect has already let go of what it opened; one still connecting is left to fail.
      // disconnect() bounds itself; the outer deadline is for the connect the producer or admin may still be waiting on.
      ...producers.map((producer) => withDeadline(producer.then((p) => this.disconnect(p, 'producer'), () => undefined), DISCONNECT_MS)),
      ...admins.map((admin) => withDeadline(admin?.then((a) => this.disconnect(a, 'admin'), () => undefined) ?? Promise.resolve(), DISCONNECT_MS)),
    ]);
  }

  /**
   * A consumer that is joining or rebalancing leaves its group only when the round ends, which
   * can take as long as the session timeout: a stop waits a bounded time, then goes on (the
   * broker drops the member when its session expires).
   */
  private async disconnect(client: Consumer | Producer | Admin, what: string): Promise<void> {
    if ((await withDeadline(client.disconnect(), DISCONNECT_MS)) === 'overran') {
      this.log.warn({ client: what, ms: DISCONNECT_MS }, 'kafka client did not disconnect in time; leaving it to the broker');
    }
  }

  /** A consumer whose declared topic vanished (a broker's data lost) gets it back, with its configuration, before kafkajs restarts it. */
  private recreateOnCrash(consumer: Consumer, topic: string): void {
    consumer.on(consumer.events.CRASH, () => {
      const spec = this.specs.get(topic);
      if (!spec || spec.recreate === false) return;
      void (async () => {
        if ((await this.admin.run((admin) => admin.listTopics())).includes(topic)) return;
        this.logger.warn({ topic }, `topic ${topic} no longer exists; creating it again with its declared configuration`);
        await this.ensureTopics([spec]);
      })().catch(() => undefined);
    });
  }

  /**
   * Consumers that store their position with their state resume from it, not from the broker's.
   * Until the position is known the partition's messages are dropped: after the seek the bus
   * delivers from there, so nothing is lost and nothing from a stale position reaches the handler.
   */
  private seekOnJoin(
    consumer: Consumer, options: SubscribeOptions, ownOffsets: (p: number) => Promise<string | undefined>, seeking: Set<number>, state: { stopped: boolean },
  ): void {
    const topic = options.topic;
    consumer.on(consumer.events.GROUP_JOIN, (event) => {
      const partitions = event.payload.memberAssignment[topic] ?? [];
      for (const partition of partitions) {
        seeking.add(partition);
        void this.resolveOwnOffset(options, partition, ownOffsets, state).then((offset) => {
          if (offset === undefined || state.stopped) return;
          try {
            consumer.seek({ topic, partition, offset });
          } catch (error) {
            // The consumer stopped (or crashed) while the position was read: the partition stays
            // held back, and the next join, if the consumer runs again, seeks afresh.
            this.logger.debug({ err: error, topic, partition }, 'no seek: the consumer is no longer running');
            return;
          }
          seeking.delete(partition);
        });
      }
    });
  }

  /**
   * The stored position, or with none the log's start (or end): messages dropped meanwhile must be
   * read again. Undefined once the subscription has stopped: a failing read is not retried for a
   * consumer that is gone.
   */
  private async resolveOwnOffset(
    options: SubscribeOptions, partition: number, ownOffsets: (p: number) => Promise<string | undefined>, state: { stopped: boolean },
  ): Promise<string | undefined> {
    for (let attempt = 1; !state.stopped; attempt += 1) {
      try {
        const own = await ownOffsets(partition);
        if (own !== undefined) return own;
        const log = (await this.offsets(options.topic)).find((p) => p.partition === partition);
        return (options.fromBeginning ? log?.low : log?.high) ?? '0';
      } catch (error) {
        this.logger.warn({ err: error, partition, attempt }, 'could not read a stored position; retrying');
        await new Promise((resolve) => setTimeout(resolve, Math.min(5000, 200 * attempt)));
      }
    }
    return undefined;
  }

  /** Forgets the producer (the next send opens a new one) and lets go of its connections. */
  private dropProducer(patience: SendPatience): void {
    const dropped = this.producers.get(patience);
    this.producers.delete(patience);
    void dropped?.then((p) => this.disconnect(p, 'producer')).catch(() => undefined);
  }

  private getProducer(patience: SendPatience): Promise<Producer> {
    const open = this.producers.get(patience);
    if (open) return open;
    const producer = this.kafka.producer({
      allowAutoTopicCreation: false,
      idempotent: true,
      maxInFlightRequests: 1,
      createPartitioner: Partitioners.DefaultPartitioner,
      ...(patience === 'brief' ? { retry: BRIEF_RETRY } : {}),
    });
    const connecting = producer.connect().then(() => producer, async (error: unknown) => {
      // A producer that never connected (the broker was away at the first send) is not kept:
      // the next send opens a new one, instead of failing with this error for ever.
      if (this.producers.get(patience) === connecting) this.producers.delete(patience);
      await producer.disconnect().catch(() => undefined);
      throw error;
    });
    this.producers.set(patience, connecting);
    return connecting;
  }
}

/**
 * How long a send retries. `patient`: the client's budget (about 20 s), for topics any sender may
 * create again. `brief`: for a topic only its own sender may create again (`recreate: false`, the
 * registry log refilled by its relay): gone, it comes back only once that send has given up, and a
 * send left retrying in the background could land in the recreated topic ahead of the refill. Its
 * sender retries on its own, so the send gives up after about 1.5 s (100 + 200 + 400 + 800 ms);
 * so does a read of offsets.
 */
type SendPatience = 'patient' | 'brief';
const BRIEF_RETRY = { retries: 4, initialRetryTime: 100, maxRetryTime: 800, multiplier: 2, factor: 0.2 };

/** Kafka's refusals of a batch for its size: deterministic, so retrying the same batch cannot help. */
const SIZE_REFUSALS = new Set(['MESSAGE_TOO_LARGE', 'RECORD_LIST_TOO_LARGE']);
/** A consumer's stop: it tells kafkajs not to restart it, and is awaited by every later stop of the same consumer. */
interface ConsumerState {
  stopped: boolean;
  leaving?: Promise<void>;
}

/** Refusals of an idempotent producer whose state the broker no longer has: only a new producer gets past them. */
const PRODUCER_STATE_LOST = new Set(['OUT_OF_ORDER_SEQUENCE_NUMBER', 'UNKNOWN_PRODUCER_ID', 'INVALID_PRODUCER_EPOCH']);

/** The first of `types` in the error or the errors it was caused by (kafkajs wraps protocol errors). */
function errorType(error: unknown, types: ReadonlySet<string>): string | undefined {
  for (let e = error as { type?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth += 1) {
    if (typeof e.type === 'string' && types.has(e.type)) return e.type;
  }
  return undefined;
}

/** Whether the cluster has this topic, from its metadata alone; kafkajs gives up at once on an unknown topic. */
async function topicExists(admin: Admin, topic: string): Promise<boolean> {
  try {
    const { topics } = await admin.fetchTopicMetadata({ topics: [topic] });
    return topics.some((t) => t.name === topic);
  } catch (error) {
    if ((error as { type?: unknown }).type === 'UNKNOWN_TOPIC_OR_PARTITION') return false;
    throw error;
  }
}

/** Why kafkajs gave up connecting (refused, no such host, timed out), or undefined for a broker that answered with an error. */
export function neverReached(error: unknown): string | undefined {
  let reason: string | undefined;
  for (let e: unknown = error; e instanceof Error; e = (e as { cause?: unknown }).cause) {
    if (e.name === 'KafkaJSConnectionError' || (e.name === 'KafkaJSNumberOfRetriesExceeded' && /Connection (error|timeout)/.test(e.message))) reason = e.message;
  }
  return reason;
}
