import { randomUUID } from 'node:crypto';
import type { EventEnvelope } from '@estate/events';
import type { BusMessage, EventBus, Logger, PartitionOffsets } from '@estate/platform';
import type { MemoryProjection } from './catalog.apply';
import { CatalogFold, type FoldOrigin } from './catalog.fold';

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

/** Events per page of the event store: the most the registry's GET /v1/events serves at once. */
const STORE_PAGE = 1000;
/**
 * Messages per page of a log read directly (bus.readPage), read while the page before folds:
 * about 1 MB of registry events. Pages of 10,000 outlived a young-generation collection or two
 * (both pages in memory are live at every scavenge) and were copied, then promoted, then marked:
 * the garbage collector cost a fifth of the rebuild. Much smaller pages would wait on round trips.
 */
const LOG_PAGE = 2000;
const PROGRESS_MS = 2000;
const DEFAULT_TIMEOUT_MS = 120_000;
const RELAY_GRACE_MS = 3000;

/**
 * Folds every registry event into a fresh in-memory projection: from the log when it still holds
 * everything from offset zero, otherwise from the event store. A streaming fold: pages are read
 * while the one before is folded and dropped once folded, so memory is the catalog's size plus two
 * pages, whatever the log's length. Bounded by a deadline, so a log that never reaches the
 * expected offsets fails the rebuild instead of hanging it.
 */
export class CatalogRebuilder {
  private readonly deadline: number;
  private readonly started = Date.now();
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
    const fold = this.newFold();
    let page = readAhead(source.read('0', STORE_PAGE));
    for (;;) {
      this.checkDeadline(`read ${fold.events} of ${total} events from the event store`);
      const { events, next } = await page;
      // The next page is on its way while this one folds: the registry and we work at once.
      if (events.length === STORE_PAGE) page = readAhead(source.read(next, STORE_PAGE));
      for (const envelope of events) fold.apply(envelope, envelope, false);
      this.progress(fold.events, total, 'event store');
      if (events.length < STORE_PAGE) return { projection: fold.projection, events: fold.events };
    }
  }

  /** Reads each partition from offset 0 up to the high-water marks seen at the start, in large pages, outside any group. */
  private async foldLogPages(readPage: NonNullable<EventBus['readPage']>, offsets: PartitionOffsets[], total: number): Promise<LogFold> {
    const fold = this.newFold();
    for (const { partition, high } of offsets) {
      const end = BigInt(high);
      let next = 0n;
      let page = readAhead(readPage.call(this.bus, this.topic, partition, '0', LOG_PAGE));
      while (next < end) {
        this.checkDeadline(`read ${fold.events} of ${total} messages from the log`);
        const messages = (await page).filter((m) => BigInt(m.offset) < end);
        if (messages.length === 0) {
          fold.noteProblem(`partition ${partition} ended at offset ${next}, before ${end}, while it was read`);
          break;
        }
        next = BigInt(messages[messages.length - 1].offset) + 1n;
        if (next < end) page = readAhead(readPage.call(this.bus, this.topic, partition, String(next), LOG_PAGE));
        for (const message of messages) fold.apply(parseJson(message.value), message, true);
        this.progress(fold.events, total, 'log');
      }
    }
    return { projection: fold.projection, events: fold.events, outOfOrder: fold.outOfOrder };
  }

  /** Reads the topic from offset 0 up to the high-water marks seen at the start, through a throwaway consumer group. */
  private async foldLog(offsets: PartitionOffsets[], total: number): Promise<LogFold> {
    const held = offsets.filter((p) => BigInt(p.high) > 0n);
    if (this.bus.readPage) return this.foldLogPages(this.bus.readPage, held, total);
    const fold = this.newFold();
    const remaining = new Map(held.map((p) => [p.partition, BigInt(p.high)]));
    if (remaining.size === 0) return { projection: fold.projection, events: 0 };
    let done!: () => void;
    const finished = new Promise<void>((resolve) => (done = resolve));
    const take = async (message: BusMessage): Promise<void> => {
      const end = remaining.get(message.partition);
      if (end === undefined || BigInt(message.offset) >= end) return;
      fold.apply(parseJson(message.value), message, true);
      if (BigInt(message.offset) + 1n >= end) remaining.delete(message.partition);
      if (remaining.size === 0) done();
    };
    const subscription = await this.bus.subscribe({
      topic: this.topic,
      groupId: `${this.groupId}-rebuild-${randomUUID()}`,
      fromBeginning: true,
      ownOffsets: async () => '0',
      handle: async (message: BusMessage) => {
        await take(message);
        this.progress(fold.events, total, 'log');
      },
      // Batches where the bus has them: its fetches are then as large as LOG_PAGE-sized slices, not one message each.
      maxBatch: LOG_PAGE,
      handleBatch: async (batch) => {
        for (const message of batch.messages) await take(message);
        this.progress(fold.events, total, 'log');
      },
    });
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(this.timeout(`read ${fold.events} of ${total} messages from the log`)), Math.max(0, this.deadline - Date.now()));
    });
    try {
      await Promise.race([finished, expired]);
    } finally {
      clearTimeout(timer);
      await subscription.stop();
    }
    return { projection: fold.projection, events: fold.events, outOfOrder: fold.outOfOrder };
  }

  private newFold(): CatalogFold {
    return new CatalogFold((origin: FoldOrigin, reason: string) => this.logger.error(
      { ...('id' in origin ? { eventId: origin.id } : { partition: origin.partition, offset: origin.offset }), reason }, 'rebuild skipped an event that cannot apply',
    ));
  }

  private progress(events: number, total: number, from: string): void {
    this.options.watch?.progress(events, total);
    if (Date.now() - this.lastProgress < PROGRESS_MS) return;
    this.lastProgress = Date.now();
    const perSecond = Math.round(events / Math.max(0.001, (Date.now() - this.started) / 1000));
    this.logger.info({ events, total, perSecond }, `rebuild in progress: ${events} of ${total} events read from the ${from} (${perSecond} events/s)`);
  }

  private checkDeadline(progress: string): void {
    if (Date.now() > this.deadline) throw this.timeout(progress);
  }

  private timeout(progress: string): RebuildTimeout {
    const seconds = (this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS) / 1000;
    return new RebuildTimeout(`the rebuild did not finish within ${seconds} s (${progress}); the catalog was left as it was`);
  }
}

interface LogFold {
  projection: MemoryProjection;
  events: number;
  outOfOrder?: string;
}

/** A page read ahead may be abandoned (the deadline passed): its failure must not go unhandled. */
function readAhead<T>(page: Promise<T>): Promise<T> {
  page.catch(() => undefined);
  return page;
}

export function parseJson(value: string | null): unknown {
  try {
    return JSON.parse(value ?? 'null');
  } catch {
    // Not JSON at all: applyEnvelope reports it as not an envelope, like any other malformed value.
    return value;
  }
}
