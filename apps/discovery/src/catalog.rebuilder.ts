import { randomUUID } from 'node:crypto';
import type { EventEnvelope } from '@estate/events';
import type { BusMessage, EventBus, Logger, PartitionOffsets } from '@estate/platform';
import { applyEnvelope, MemoryProjection } from './catalog.apply';

/** The registry's event store, read in commit order (an admin-only HTTP endpoint of the registry). */
export interface RegistryEventSource {
  /** How many events the store holds now. */
  count(): Promise<number>;
  /** Up to `limit` events after a store position; `next` is where the following page starts. */
  read(after: string, limit: number): Promise<{ events: EventEnvelope[]; next: string }>;
}

/** Hears a rebuild from start to end (the metrics); progress comes with every page folded. */
export interface RebuildWatch {
  started(): void;
  progress(events: number, total: number): void;
  finished(outcome: 'ok' | 'failed'): void;
}

export interface RebuildOptions {
  source?: RegistryEventSource;
  timeoutMs?: number;
  watch?: RebuildWatch;
}

export interface RebuildOutcome {
  tools: number;
  servers: number;
  events: number;
  source: 'log' | 'event store';
}

/** A rebuild that did not finish in time; nothing was swapped. */
export class RebuildTimeout extends Error {}
/** The log is incomplete and no event store is reachable to rebuild from; nothing was swapped. */
export class RebuildUnavailable extends Error {}

const PAGE = 500;
const PROGRESS_MS = 2000;
const DEFAULT_TIMEOUT_MS = 120_000;
const RELAY_GRACE_MS = 3000;

/**
 * Folds every registry event into a fresh in-memory projection: from the log when it still holds
 * everything from offset zero, otherwise from the event store. Bounded by a deadline, so a log
 * that never reaches the expected offsets fails the rebuild instead of hanging it.
 */
export class CatalogRebuilder {
  private readonly deadline: number;
  private lastProgress = Date.now();

  constructor(
    private readonly bus: EventBus,
    private readonly topic: string,
    private readonly groupId: string,
    private readonly logger: Logger,
    private readonly options: RebuildOptions,
  ) {
    this.deadline = Date.now() + (options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  }

  /** `applied`: how many events the live projection has applied; a log holding fewer cannot be complete. */
  async fold(applied: number): Promise<{ projection: MemoryProjection; events: number; source: RebuildOutcome['source'] }> {
    const stored = this.options.source ? await this.options.source.count() : undefined;
    const offsets = await this.logHolding(stored);
    const held = offsets.reduce((sum, p) => sum + Number(BigInt(p.high) - BigInt(p.low)), 0);
    // A recreated log starts at zero too: it is complete only if it holds at least every event known.
    const complete = offsets.length > 0 && offsets.every((p) => p.low === '0') && held >= Math.max(stored ?? 0, applied);
    if (complete) {
      this.logger.info({ topic: this.topic, messages: held }, `rebuilding the catalog from the log (${held} messages from offset 0)`);
      const folded = await this.foldLog(offsets, held);
      if (folded.outOfOrder === undefined) return { ...folded, source: 'log' };
      if (!this.options.source) throw new RebuildUnavailable(`the log ${this.topic} cannot be folded (${folded.outOfOrder}) and no registry is configured (ESTATE_REGISTRY_URL) to rebuild from`);
      this.logger.warn({ topic: this.topic }, `the log cannot be folded (${folded.outOfOrder}): rebuilding the catalog from the event store`);
      return { ...(await this.foldStore(this.options.source, stored ?? 0)), source: 'event store' };
    }
    if (!this.options.source) {
      throw new RebuildUnavailable(`the log ${this.topic} holds ${held} messages from offset ${offsets[0]?.low ?? 0}, fewer than the ${applied} events the catalog applied, and no registry is configured (ESTATE_REGISTRY_URL) to rebuild from`);
    }
    this.logger.info({ topic: this.topic, messages: held, stored }, `the log is incomplete (${held} messages, ${stored} stored events): rebuilding the catalog from the event store`);
    return { ...(await this.foldStore(this.options.source, stored ?? 0)), source: 'event store' };
  }

  /** The log's offsets once it holds `stored` messages, or after a short grace: the relay may be a few events behind the store. */
  private async logHolding(stored: number | undefined): Promise<PartitionOffsets[]> {
    const grace = Date.now() + RELAY_GRACE_MS;
    for (;;) {
      const offsets = await this.bus.offsets(this.topic);
      const held = offsets.reduce((sum, p) => sum + Number(BigInt(p.high)), 0);
      if (stored === undefined || held >= stored || Date.now() > grace) return offsets;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** A fresh fold of the event store alone (what `estate verify` compares the catalog with). */
  async foldFromStore(): Promise<{ projection: MemoryProjection; events: number }> {
    if (!this.options.source) throw new RebuildUnavailable('no registry is configured (ESTATE_REGISTRY_URL) to read the event store from');
    return this.foldStore(this.options.source, await this.options.source.count());
  }

  private async foldStore(source: RegistryEventSource, total: number): Promise<{ projection: MemoryProjection; events: number }> {
    const projection = new MemoryProjection();
    let events = 0;
    let after = '0';
    for (;;) {
      this.checkDeadline(`read ${events} of ${total} events from the event store`);
      const page = await source.read(after, PAGE);
      for (const envelope of page.events) {
        const outcome = await applyEnvelope(projection, envelope);
        if (outcome.skipped !== undefined) this.logger.error({ eventId: envelope.id, reason: outcome.skipped }, 'rebuild skipped a stored event that cannot apply');
      }
      events += page.events.length;
      after = page.next;
      this.progress(events, total, 'event store');
      if (page.events.length < PAGE) return { projection, events };
    }
  }

  /** Reads the topic from offset 0 up to the high-water marks seen at the start, through a throwaway consumer group. */
  private async foldLog(offsets: PartitionOffsets[], total: number): Promise<{ projection: MemoryProjection; events: number; outOfOrder?: string }> {
    const projection = new MemoryProjection();
    const order = new StreamOrder();
    let events = 0;
    const remaining = new Map(offsets.filter((p) => BigInt(p.high) > 0n).map((p) => [p.partition, BigInt(p.high)]));
    if (remaining.size === 0) return { projection, events };
    let done!: () => void;
    const finished = new Promise<void>((resolve) => (done = resolve));
    const subscription = await this.bus.subscribe({
      topic: this.topic,
      groupId: `${this.groupId}-rebuild-${randomUUID()}`,
      fromBeginning: true,
      ownOffsets: async () => '0',
      handle: async (message: BusMessage) => {
        const end = remaining.get(message.partition);
        if (end === undefined || BigInt(message.offset) >= end) return;
        const value = parseJson(message.value);
        order.see(value);
        const outcome = await applyEnvelope(projection, value);
        if (outcome.skipped !== undefined) this.logger.error({ partition: message.partition, offset: message.offset, reason: outcome.skipped }, 'rebuild skipped a message that cannot apply');
        events += 1;
        this.progress(events, total, 'log');
        if (BigInt(message.offset) + 1n >= end) remaining.delete(message.partition);
        if (remaining.size === 0) done();
      },
    });
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(this.timeout(`read ${events} of ${total} messages from the log`)), Math.max(0, this.deadline - Date.now()));
    });
    try {
      await Promise.race([finished, expired]);
    } finally {
      clearTimeout(timer);
      await subscription.stop();
    }
    return { projection, events, outOfOrder: order.problem };
  }

  private progress(events: number, total: number, from: string): void {
    this.options.watch?.progress(events, total);
    if (Date.now() - this.lastProgress < PROGRESS_MS) return;
    this.lastProgress = Date.now();
    this.logger.info({ events, total }, `rebuild in progress: ${events} of ${total} events read from the ${from}`);
  }

  private checkDeadline(progress: string): void {
    if (Date.now() > this.deadline) throw this.timeout(progress);
  }

  private timeout(progress: string): RebuildTimeout {
    const seconds = (this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS) / 1000;
    return new RebuildTimeout(`the rebuild did not finish within ${seconds} s (${progress}); the catalog was left as it was`);
  }
}

/**
 * Watches that each stream's events come in position order without gaps. A log refilled after a
 * loss can hold an event ahead of its predecessors; folding it would drop them (their positions
 * look applied), so such a log is folded from the event store instead.
 */
class StreamOrder {
  problem?: string;
  private readonly last = new Map<string, number>();

  see(value: unknown): void {
    const { stream, position } = (value ?? {}) as { stream?: unknown; position?: unknown };
    if (typeof stream !== 'string' || typeof position !== 'number' || this.problem !== undefined) return;
    const last = this.last.get(stream) ?? -1;
    if (position > last + 1) this.problem = `stream ${stream} jumps from position ${last} to ${position}`;
    this.last.set(stream, Math.max(last, position));
  }
}

export function parseJson(value: string | null): unknown {
  try {
    return JSON.parse(value ?? 'null');
  } catch {
    // Not JSON at all: applyEnvelope reports it as not an envelope, like any other malformed value.
    return value;
  }
}
