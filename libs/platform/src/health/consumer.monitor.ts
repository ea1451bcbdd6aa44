import type { EventBus, PartitionOffsets, SubscribeOptions, Subscription } from '../event-bus.port';
import type { HealthCheck } from './health.check';
import { withTimeout } from './health.check';
import { describePartition, stallOf, type PartitionProgress, type PartitionReport } from './partition.progress';

export interface ConsumerMonitorOptions {
  /** A consumer further than this many messages behind the end of its log is not ready. */
  maxLag: number;
  /** A handler failing on, or busy with, one message this long (or no progress with messages waiting) is stuck. */
  stallMs: number;
  now?: () => number;
  /** Log offsets are read at most this often, however often probes ask. */
  cacheMs?: number;
  /** A bus (or a store) that does not say its offsets within this time leaves the lag unknown. */
  offsetsTimeoutMs?: number;
}

export interface ConsumerReport {
  name: string;
  topic: string;
  groupId: string;
  subscribed: boolean;
  partitions: PartitionReport[];
  /** Why the lag is unknown: the log's offsets could not be read. */
  offsetsError?: string;
}

interface Tracked {
  name: string;
  options: SubscribeOptions;
  subscribed: boolean;
  since: number;
  partitions: Map<number, PartitionProgress>;
}

/**
 * Watches consumers from the outside: it wraps each subscription's handler to record, per
 * partition, the last offset handled, the message in hand, and the last failure with since when,
 * and compares positions with the bus's log offsets to tell the lag. Consumers need not know.
 */
export class ConsumerMonitor {
  private readonly tracked = new Map<string, Tracked>();
  private readonly now: () => number;
  private cached?: { at: number; reports: Promise<ConsumerReport[]> };

  constructor(private readonly bus: EventBus, private readonly options: ConsumerMonitorOptions) {
    this.now = options.now ?? Date.now;
  }

  /** The same options with a handler that records progress under `name`. */
  track(name: string, options: SubscribeOptions): SubscribeOptions {
    const tracked: Tracked = { name, options, subscribed: false, since: this.now(), partitions: new Map() };
    this.tracked.set(name, tracked);
    const handleBatch = options.handleBatch;
    return {
      ...options,
      handle: (message) => this.handled(tracked, message.partition, message.offset, message.offset, () => options.handle(message)),
      // A batch is in hand from its first offset; once it succeeds the position is past its last.
      handleBatch: handleBatch && ((batch) => {
        const first = batch.messages[0].offset;
        const last = batch.messages[batch.messages.length - 1].offset;
        return this.handled(tracked, batch.partition, first, last, () => handleBatch(batch));
      }),
    };
  }

  /**
   * A bus whose subscriptions are tracked under the name `nameOf` gives them; subscriptions it
   * names `undefined` (a rebuild's throwaway reader) pass through untouched. Composition roots
   * hand it to consumers, which stay unaware of the monitor.
   */
  watch(bus: EventBus, nameOf: (options: SubscribeOptions) => string | undefined): EventBus {
    const subscribe = async (options: SubscribeOptions): Promise<Subscription> => {
      const name = nameOf(options);
      if (name === undefined) return bus.subscribe(options);
      const subscription = await bus.subscribe(this.track(name, options));
      const tracked = this.tracked.get(name);
      if (tracked) tracked.subscribed = true;
      return {
        stop: async () => {
          if (tracked) tracked.subscribed = false;
          await subscription.stop();
        },
      };
    };
    return {
      ensureTopics: (topics) => bus.ensureTopics(topics),
      publish: (topic, messages) => bus.publish(topic, messages),
      subscribe,
      offsets: (topic) => bus.offsets(topic),
      committed: bus.committed ? (groupId, topic) => bus.committed!(groupId, topic) : undefined,
      readPage: bus.readPage ? (topic, partition, offset, limit) => bus.readPage!(topic, partition, offset, limit) : undefined,
      close: () => bus.close(),
    };
  }

  /** Three checks per consumer: `<name>.subscribed`, `<name>.lag` and `<name>.progress`. */
  checks(names: readonly string[]): HealthCheck[] {
    return names.flatMap((name) => [
      { name: `${name}.subscribed`, run: async () => this.subscribedCheck(name) },
      { name: `${name}.lag`, run: async () => this.lagCheck(name) },
      { name: `${name}.progress`, run: async () => this.progressCheck(name) },
    ]);
  }

  /** Every tracked consumer with its positions and lag per partition; reused for `cacheMs`. */
  report(): Promise<ConsumerReport[]> {
    const now = this.now();
    if (!this.cached || now - this.cached.at >= (this.options.cacheMs ?? 1000)) {
      this.cached = { at: now, reports: Promise.all([...this.tracked.values()].map((t) => this.describe(t))) };
    }
    return this.cached.reports;
  }

  private async handled(tracked: Tracked, partition: number, first: string, last: string, handle: () => Promise<void>): Promise<void> {
    const progress = this.progress(tracked, partition);
    // A batch delivered again may start below what was applied; the consumer drops that part, so
    // the message in hand (and failing) is the first one past the position, not the batch's first.
    const offset = progress.next !== undefined && BigInt(first) < progress.next && progress.next <= BigInt(last) ? String(progress.next) : first;
    progress.busy = { offset, since: this.now() };
    try {
      await handle();
    } catch (error) {
      const same = progress.failure?.offset === offset;
      progress.failure = {
        offset,
        since: same ? progress.failure!.since : this.now(),
        attempts: same ? progress.failure!.attempts + 1 : 1,
        error: error instanceof Error ? error.message : String(error),
      };
      throw error;
    } finally {
      progress.busy = undefined;
    }
    progress.next = BigInt(last) + 1n;
    progress.appliedAt = this.now();
    progress.failure = undefined;
  }

  private progress(tracked: Tracked, partition: number): PartitionProgress {
    let progress = tracked.partitions.get(partition);
    if (!progress) {
      progress = { appliedAt: tracked.since };
      tracked.partitions.set(partition, progress);
    }
    return progress;
  }

  private async describe(tracked: Tracked): Promise<ConsumerReport> {
    const { topic, groupId } = tracked.options;
    const base = { name: tracked.name, topic, groupId, subscribed: tracked.subscribed };
    let offsets: PartitionOffsets[];
    try {
      offsets = await this.bounded(this.bus.offsets(topic), "the log's offsets");
    } catch (error) {
      const partitions = [...tracked.partitions].map(([partition, progress]) => describePartition(partition, progress, undefined, undefined, this.now()));
      return { ...base, partitions, offsetsError: error instanceof Error ? error.message : String(error) };
    }
    const committed = await this.committed(tracked);
    const partitions = await Promise.all(offsets.map(async (log) => {
      const progress = this.progress(tracked, log.partition);
      const stored = progress.next === undefined ? await this.storedPosition(tracked, log, committed) : undefined;
      return describePartition(log.partition, progress, log, stored, this.now());
    }));
    return { ...base, partitions };
  }

  /** Before the first message of a run, the position is what the consumer or the bus stored. */
  private async storedPosition(tracked: Tracked, log: PartitionOffsets, committed: Map<number, string> | undefined): Promise<string | undefined> {
    const own = tracked.options.ownOffsets;
    if (own) {
      const offset = await this.bounded(own(log.partition), 'the stored position').catch(() => undefined);
      return offset ?? (tracked.options.fromBeginning ? log.low : undefined);
    }
    if (!committed) return undefined;
    return committed.get(log.partition) ?? (tracked.options.fromBeginning ? log.low : log.high);
  }

  private async committed(tracked: Tracked): Promise<Map<number, string> | undefined> {
    if (tracked.options.ownOffsets || !this.bus.committed) return undefined;
    return this.bounded(this.bus.committed(tracked.options.groupId, tracked.options.topic), "the group's committed offsets").catch(() => undefined);
  }

  /** A report never waits on a bus or a database that does not answer; what it cannot learn stays unknown. */
  private bounded<T>(work: Promise<T>, what: string): Promise<T> {
    const ms = this.options.offsetsTimeoutMs ?? 2000;
    return withTimeout(work, ms, `${what} did not come within ${ms} ms`);
  }

  private subscribedCheck(name: string) {
    const tracked = this.tracked.get(name);
    if (!tracked) return { ok: false, reason: 'never subscribed' };
    return tracked.subscribed ? { ok: true } : { ok: false, reason: 'not subscribed' };
  }

  private async lagCheck(name: string) {
    const report = (await this.report()).find((r) => r.name === name);
    if (!report) return { ok: false, reason: 'never subscribed' };
    // An unknown lag (the log cannot be asked) keeps the consumer ready: the edge must go on
    // serving its last catalog while Kafka is away. The progress check still catches a stuck handler.
    const behind = report.partitions.filter((p) => p.lag !== null && p.lag > this.options.maxLag);
    if (behind.length === 0) return { ok: true };
    return { ok: false, reason: behind.map((p) => `partition ${p.partition} is ${p.lag} messages behind (bound ${this.options.maxLag})`).join('; ') };
  }

  private async progressCheck(name: string) {
    const report = (await this.report()).find((r) => r.name === name);
    if (!report) return { ok: false, reason: 'never subscribed' };
    const stalls = report.partitions.map((p) => stallOf(p, this.options.stallMs)).filter((s): s is string => s !== undefined);
    return stalls.length === 0 ? { ok: true } : { ok: false, reason: stalls.join('; ') };
  }
}
