import type { Kafka, KafkaMessage } from 'kafkajs';
import type { BusMessage } from './event-bus.port';
import { toBusMessage } from './kafka-batch.handler';

/**
 * The part of kafkajs's cluster a page read needs. kafkajs builds its consumers and admin on this
 * cluster but does not export it; a consumer would have to join a group (a join, a sync, heartbeats,
 * a fetch loop feeding handlers) just to read a range of one partition once.
 */
interface FetchCluster {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  addTargetTopic(topic: string): Promise<void>;
  refreshMetadata(): Promise<void>;
  findLeaderForPartitions(topic: string, partitions: number[]): Record<string, number[]>;
  findBroker(args: { nodeId: string }): Promise<FetchBroker>;
}

interface FetchedPartition {
  partition: number;
  messages: Array<KafkaMessage & { isControlRecord?: boolean }>;
  abortedTransactions?: unknown[];
}

interface FetchBroker {
  fetch(request: {
    maxWaitTime: number;
    minBytes: number;
    maxBytes: number;
    isolationLevel: number;
    topics: Array<{ topic: string; partitions: Array<{ partition: number; fetchOffset: string; maxBytes: number }> }>;
  }): Promise<{ responses: Array<{ topicName: string; partitions: FetchedPartition[] }> }>;
}

/** kafkajs's READ_COMMITTED: no record of an open or aborted transaction (the estate writes none). */
const READ_COMMITTED = 1;
/** Bytes per fetch: about 2,500 registry events (a page the fold keeps young); the broker still returns a larger first record batch whole. */
const FETCH_BYTES = 1024 * 1024;
const ATTEMPTS = 5;

/**
 * Reads a range of one partition in large fetches straight from its leader, outside any consumer
 * group: what a rebuild needs to fold a whole log. The cluster is made through the client's own
 * factory, so it shares the client's brokers, TLS, SASL and retry settings.
 */
export class KafkaPageReader {
  private cluster?: Promise<FetchCluster>;

  constructor(private readonly kafka: Kafka) {}

  /** Available only where this kafkajs still makes clusters the way this reader expects. */
  static supports(kafka: Kafka): boolean {
    return clusterFactory(kafka) !== undefined;
  }

  /**
   * Up to `limit` messages from `offset` on (fewer at the end of a fetch or of the log; none past
   * the end). Leadership moves and stale metadata are retried with fresh metadata.
   */
  async read(topic: string, partition: number, offset: string, limit: number): Promise<BusMessage[]> {
    for (let attempt = 1; ; attempt += 1) {
      const cluster = await this.open();
      try {
        await cluster.addTargetTopic(topic);
        const [nodeId] = Object.entries(cluster.findLeaderForPartitions(topic, [partition])).find(([, ps]) => ps.includes(partition)) ?? [];
        if (nodeId === undefined) throw new Error(`no leader is known for ${topic}/${partition}`);
        const broker = await cluster.findBroker({ nodeId });
        const { responses } = await broker.fetch({
          maxWaitTime: 0,
          minBytes: 1,
          maxBytes: FETCH_BYTES,
          isolationLevel: READ_COMMITTED,
          topics: [{ topic, partitions: [{ partition, fetchOffset: offset, maxBytes: FETCH_BYTES }] }],
        });
        return pageOf(topic, partition, BigInt(offset), limit, responses.flatMap((r) => (r.topicName === topic ? r.partitions : [])));
      } catch (error) {
        if (attempt >= ATTEMPTS) throw error;
        await cluster.refreshMetadata().catch(() => undefined);
        await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
      }
    }
  }

  async close(): Promise<void> {
    const cluster = await this.cluster?.catch(() => undefined);
    this.cluster = undefined;
    await cluster?.disconnect().catch(() => undefined);
  }

  private open(): Promise<FetchCluster> {
    if (!this.cluster) {
      const create = clusterFactory(this.kafka);
      if (!create) return Promise.reject(new Error('this kafkajs version makes no cluster a page could be read with'));
      const cluster = create({ metadataMaxAge: 300_000, allowAutoTopicCreation: false, maxInFlightRequests: null, isolationLevel: READ_COMMITTED });
      const connected = cluster.connect().then(() => cluster);
      connected.catch(() => {
        if (this.cluster === connected) this.cluster = undefined;
      });
      this.cluster = connected;
    }
    return this.cluster;
  }
}

/**
 * A fetch starts at the record batch holding `offset`, so records before it are dropped; so are
 * control records and (were there transactions) records of aborted ones.
 */
function pageOf(topic: string, partition: number, from: bigint, limit: number, fetched: FetchedPartition[]): BusMessage[] {
  const page: BusMessage[] = [];
  for (const data of fetched) {
    if (data.partition !== partition) continue;
    if ((data.abortedTransactions?.length ?? 0) > 0) throw new Error(`${topic}/${partition} holds aborted transactions, which a page read does not filter`);
    for (const message of data.messages) {
      if (page.length === limit) return page;
      if (message.isControlRecord || BigInt(message.offset) < from) continue;
      page.push(toBusMessage(topic, partition, message));
    }
  }
  return page;
}

type ClusterFactory = (options: Record<string, unknown>) => FetchCluster;

/** kafkajs keeps its cluster factory under a private symbol of the client. */
function clusterFactory(kafka: Kafka): ClusterFactory | undefined {
  const symbol = Object.getOwnPropertySymbols(kafka).find((s) => s.description === 'private:Kafka:createCluster');
  const create = symbol === undefined ? undefined : (kafka as unknown as Record<symbol, unknown>)[symbol];
  return typeof create === 'function' ? (create as ClusterFactory) : undefined;
}
