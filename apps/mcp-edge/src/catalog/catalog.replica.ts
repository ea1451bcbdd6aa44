import { resolveForPrincipal, VisibleListCache, type Pins, type VisibleCatalog, type VisibleTool } from '@estate/catalog';
import type { Principal } from '@estate/contracts';
import { catalogVersionKeyParts, type CatalogEntry } from '@estate/events';
import {
  eventLogger, extractTraceContext, openSpan, withTraceContext, type BusMessage, type DeadLetterOffice, type EventBus, type Logger, type PartitionOffsets, type TraceContext,
} from '@estate/platform';
import type { INestMicroservice } from '@nestjs/common';
import { readCatalogRecord } from './catalog-entry.check';
import { CatalogAssembly } from './catalog.assembly';
import { startCatalogConsumer } from './catalog.consumer';

/** How long an edge waits at start to have read the catalog topic as it stood. */
const CATCH_UP_MS = 10_000;

export interface CatalogChange {
  name: string;
  before: CatalogEntry | undefined;
  after: CatalogEntry | undefined;
}

/**
 * Whether a caller's tools/list changed: some changed tool resolves, for this principal and its
 * pins, to another version than before, or appears or disappears. Sessions and 2026-07-28 listen
 * streams are judged by this one rule. Statuses are read as stored, not at a sunset: the sweep's
 * retirement is what tells a client that listed before the sunset that its list changed.
 */
export function listChangedFor(changes: readonly CatalogChange[], principal: Principal, pins: Pins): boolean {
  return changes.some(({ name, before, after }) => {
    const pin = pins[name];
    const was = before && resolveForPrincipal(before, principal, pin)?.version;
    const is = after && resolveForPrincipal(after, principal, pin)?.version;
    return was !== is;
  });
}

/**
 * The edge's in-memory copy of the compacted catalog topic. Every edge instance reads the whole
 * topic with a group of its own, so it keeps answering from the last catalog it saw when
 * discovery or Kafka is down.
 */
export class CatalogReplica {
  private readonly entries = new Map<string, CatalogEntry>();
  /** Heads and version records read from the topic, put together into `entries`. */
  private readonly assembly = new CatalogAssembly();
  private readonly listeners: Array<(changes: CatalogChange[], log: Logger) => void> = [];
  /** `name@version` this edge quarantined itself, kept hidden until the catalog says so too. */
  private readonly localQuarantine = new Set<string>();
  private consumer?: INestMicroservice;
  /** The last offset read per partition, for the catch-up at start. */
  private readonly read = new Map<number, bigint>();
  private deadLetters?: DeadLetterOffice;
  private pending: CatalogChange[] = [];
  /** The trace of the last record in the pending batch (discovery's apply of a registry event), if it had one. */
  private pendingTrace?: TraceContext;
  /** The last record of the pending batch: its correlation id goes on the lines the batch's notifications write. */
  private pendingCause?: BusMessage;
  private flushTimer?: NodeJS.Timeout;
  /** A Kafka batch is being applied: its end decides when its changes go out, not a timer per record. */
  private inBatch = false;
  /** When listeners last heard of changes: the next batch waits out the rest of the window. */
  private lastFlush = Number.NEGATIVE_INFINITY;
  /** Bumped on every change applied; the visible-list cache is only good for one generation. */
  private generation = 0;

  /** How many changes have been applied: what is worked out from the whole catalog holds until this moves. */
  get changes(): number {
    return this.generation;
  }
  private readonly visibleLists = new VisibleListCache();
  /** One stable view: iterates the live entries and answers filtered lists from the cache. */
  private readonly view: VisibleCatalog = {
    [Symbol.iterator]: () => this.entries.values(),
    visible: (principal, pins) => this.visible(principal, pins),
  };

  /**
   * `coalesceMs`: at most one batch of changes reaches listeners per window (one list_changed per
   * session). The first change after a quiet window goes out as soon as its Kafka batch is applied,
   * not a window later: a lone publish is not delayed; a burst still coalesces.
   */
  constructor(private readonly logger: Logger, private readonly coalesceMs = 10) {}

  get(name: string): CatalogEntry | undefined {
    return this.entries.get(name);
  }

  /** Every entry held; also answers `visible()` so a tools/list handler gets the cached list. */
  all(): VisibleCatalog {
    return this.view;
  }

  /** The tools this principal may see with these pins at `now` (past sunsets retire), sorted by name; shared and read-only. */
  visible(principal: Principal, pins: Pins, now = Date.now()): readonly VisibleTool[] {
    return this.visibleLists.list(this.entries.values(), this.generation, principal, pins, now);
  }

  get size(): number {
    return this.entries.size;
  }

  /** `log` carries the correlation id of the record that caused the change (the last one, when several were coalesced). */
  onChange(listener: (changes: CatalogChange[], log: Logger) => void): void {
    this.listeners.push(listener);
  }

  /** `deadLetters` receives the records this replica cannot apply (the edge keeps no table of its own). */
  async start(bus: EventBus, topic: string, groupId: string, deadLetters?: DeadLetterOffice, catchUpMs = CATCH_UP_MS): Promise<void> {
    this.deadLetters = deadLetters;
    // What the topic holds now: the edge serves once it has read that far, so its first answers
    // (a stdio client lists tools the moment it starts) come from the whole catalog, not a part.
    const ends = await bus.offsets(topic).catch(() => []);
    this.consumer = await startCatalogConsumer(this, bus, { topic, groupId, logger: this.logger });
    await this.catchUp(ends.filter((p) => BigInt(p.high) > BigInt(p.low)), catchUpMs);
  }

  /** Waits, bounded, until every partition's last message at start was read; a slow log is said, not waited for. */
  private async catchUp(ends: PartitionOffsets[], ms: number): Promise<void> {
    const behind = () => ends.filter((p) => (this.read.get(p.partition) ?? -1n) < BigInt(p.high) - 1n);
    const deadline = Date.now() + ms;
    while (behind().length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    const left = behind();
    if (left.length > 0) this.logger.warn({ partitions: left.map((p) => p.partition), ms }, 'the catalog is still loading; serving what has been read so far');
    this.flush();
  }

  async stop(): Promise<void> {
    await this.consumer?.close();
    this.flush();
  }

  isQuarantined(name: string, version: string): boolean {
    return this.entries.get(name)?.versions.some((v) => v.version === version && v.quarantined) ?? false;
  }

  /**
   * Hides a version on this edge at once, before the registry's ToolQuarantined event comes back
   * through discovery; sessions hear about it like any other catalog change.
   */
  quarantineLocally(name: string, version: string): void {
    this.localQuarantine.add(`${name}@${version}`);
    const before = this.entries.get(name);
    if (!before || this.isQuarantined(name, version)) return;
    this.publish(name, before, this.withLocalQuarantine(before));
  }

  /** Apply one catalog record; an entry older than the one held (a replay) is ignored. */
  apply(name: string, next: CatalogEntry | undefined): void {
    const before = this.entries.get(name);
    if (next && before && next.position < before.position) return;
    this.publish(name, before, next && this.withLocalQuarantine(next));
  }

  private withLocalQuarantine(entry: CatalogEntry): CatalogEntry {
    if (!entry.versions.some((v) => !v.quarantined && this.localQuarantine.has(`${entry.name}@${v.version}`))) return entry;
    const versions = entry.versions.map((v) => (this.localQuarantine.has(`${entry.name}@${v.version}`) ? { ...v, quarantined: true } : v));
    return { ...entry, versions };
  }

  private publish(name: string, before: CatalogEntry | undefined, next: CatalogEntry | undefined): void {
    if (next) this.entries.set(name, next);
    else this.entries.delete(name);
    this.generation += 1;
    const earlier = this.pending.findIndex((c) => c.name === name);
    // Within one batch a tool's change runs from its state before the batch to its latest state.
    if (earlier >= 0) this.pending[earlier] = { name, before: this.pending[earlier].before, after: next };
    else this.pending.push({ name, before, after: next });
    // Within a batch its end flushes (the rest of its records join). Elsewhere a timer even when the
    // window is over: changes made in the same turn join the flush.
    if (!this.inBatch) this.flushTimer ??= setTimeout(() => this.flush(), this.windowLeft());
  }

  private windowLeft(): number {
    return Math.max(0, this.lastFlush + this.coalesceMs - Date.now());
  }

  /** Hands the pending changes to the listeners now. */
  flush(): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    const changes = this.pending;
    const parent = this.pendingTrace;
    const cause = this.pendingCause;
    this.pending = [];
    this.pendingTrace = undefined;
    this.pendingCause = undefined;
    if (changes.length === 0) return;
    this.lastFlush = Date.now();
    const notify = () => {
      // From the headers only (discovery sends the cause's correlation id and trace there): the value
      // is a whole catalog entry, not an event envelope, and parsing it again for ids it never holds
      // cost as much as reading the record.
      const log = cause ? eventLogger(this.logger, { headers: cause.headers, value: null }) : this.logger;
      for (const listener of this.listeners) listener(changes, log);
    };
    if (!parent) return notify();
    const span = openSpan('edge notify catalog change', { 'estate.tools': changes.map((c) => c.name).join(',') }, { parent });
    try {
      withTraceContext(span.context, notify);
    } finally {
      span.end();
    }
  }

  /** A batch of catalog records in offset order (catalog.consumer.ts). */
  async receiveBatch(messages: BusMessage[]): Promise<void> {
    this.inBatch = true;
    try {
      for (const message of messages) await this.receive(message);
    } finally {
      this.inBatch = false;
      // A tool's versions and head come in one send: it is put together once, after the batch.
      this.assemble();
      // The window is over: the batch's changes go out now, not a timer's turn later (also when a record failed).
      const left = this.windowLeft();
      if (this.pending.length > 0 && left === 0) this.flush();
      else if (this.pending.length > 0) this.flushTimer ??= setTimeout(() => this.flush(), left);
    }
  }

  private async receive(message: BusMessage): Promise<void> {
    this.read.set(message.partition, BigInt(message.offset));
    if (message.headers.traceparent) this.pendingTrace = extractTraceContext(message.headers);
    this.pendingCause = message;
    // Debug only: bench/notify.bench.ts times the catalog hop from this line.
    this.logger.debug({ tool: message.key, offset: message.offset }, 'catalog record received');
    const key = message.key;
    if (!key) return this.reject(message, 'a catalog record without a key');
    if (message.value === null) {
      const version = catalogVersionKeyParts(key);
      if (version) this.assembly.dropVersion(version.tool, version.version);
      else {
        this.assembly.dropHead(key);
        this.apply(key, undefined);
      }
    } else {
      const read = readCatalogRecord(key, message.value);
      if (!read.ok) return this.reject(message, read.reason);
      const { record } = read;
      if (record.kind === 'head') this.assembly.head(record.head);
      else if (record.kind === 'version') this.assembly.version(record.record);
      else {
        this.assembly.dropHead(key);
        this.apply(key, record.entry);
      }
    }
    if (!this.inBatch) this.assemble();
  }

  /** Applies the tools whose head and versions are all held again after a change to one of them. */
  private assemble(): void {
    for (const [name, entry] of this.assembly.assembled()) this.apply(name, entry);
  }

  /** The replica keeps what it held and moves on; a failed dead-letter publish is retried like any outage. */
  private async reject(message: BusMessage, reason: string): Promise<void> {
    if (!this.deadLetters) {
      this.logger.error({ topic: message.topic, offset: message.offset, reason }, 'skipping a catalog record that cannot apply');
      return;
    }
    await this.deadLetters.send(this.deadLetters.record('edge-catalog-replica', message, reason));
  }
}
