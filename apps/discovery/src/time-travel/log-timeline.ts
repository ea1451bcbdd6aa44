import type { EventEnvelope } from '@estate/events';
import type { Logger } from '@estate/platform';
import { applyEnvelope, MemoryProjection } from '../catalog.apply';
import type { RegistryEventSource } from '../catalog.rebuilder';

/** The most events GET /v1/events serves at once. */
const STORE_PAGE = 1000;
/**
 * Events per page while indexing: a checkpoint can only sit where a page ends (the store position
 * is known there), so this is also the closest spacing of checkpoints and the most a query reads
 * back. The store's largest page: indexing 100,000 events is 100 requests, not 400.
 */
const INDEX_PAGE = STORE_PAGE;
/**
 * At most this many checkpoints; past it every other one is dropped and the spacing doubles, so
 * their memory stays bounded (each holds the catalog's maps, not the events) however long the log.
 */
const MAX_CHECKPOINTS = 512;
/** Exact folds kept for repeated `at=` instants. */
const RECENT_FOLDS = 32;

/** A fold of the first `events` events of the store; `after` is the store position to read on from. Never mutated once made. */
interface Snapshot {
  events: number;
  after: string;
  projection: MemoryProjection;
}

/** How the timeline bounds its memory (the defaults above; tests make them small). */
export interface TimelineLimits {
  indexPage: number;
  maxCheckpoints: number;
  recentFolds: number;
}

/** The catalog as it stood at an instant: the first `events` events of the log folded. */
export interface FoldedAt {
  events: number;
  /** When the last folded event happened; absent before the first event. */
  lastEventAt?: string;
  projection: MemoryProjection;
}

/**
 * The registry's event store seen as a timeline. The instant of the n-th event is the latest
 * `occurredAt` among the first n (appends that commit out of clock order cannot make the log go
 * back in time), so "the estate at T" is always a prefix of the log: the events whose instant is
 * at or before T. Kept in memory: one number per event (the instant), checkpoint folds every
 * `spacing` events, and a few recent exact folds. A query folds from the nearest checkpoint,
 * reading at most `spacing` events from the store; nothing here is a second copy of the facts.
 */
export class LogTimeline {
  private readonly instants: number[] = [];
  private checkpoints: Snapshot[] = [{ events: 0, after: '0', projection: new MemoryProjection() }];
  private spacing: number;
  /** The fold of everything indexed, written only by `extend`. */
  private head = new MemoryProjection();
  private headAfter = '0';
  /** A copy of `head` as the last `extend` left it: what "now" answers with. */
  private tip: Snapshot = this.checkpoints[0];
  private extending?: Promise<void>;
  private readonly recent = new Map<number, MemoryProjection>();

  private readonly limits: TimelineLimits;

  constructor(private readonly source: RegistryEventSource, private readonly logger: Logger, limits: Partial<TimelineLimits> = {}) {
    this.limits = { indexPage: INDEX_PAGE, maxCheckpoints: MAX_CHECKPOINTS, recentFolds: RECENT_FOLDS, ...limits };
    this.spacing = this.limits.indexPage;
  }

  async foldedAt(at: number): Promise<FoldedAt> {
    // Only an instant past the last indexed event can be changed by what was appended since.
    const last = this.instants[this.instants.length - 1];
    if (last === undefined || at >= last) await this.catchUp();
    const events = countAtOrBefore(this.instants, at);
    const lastEventAt = events > 0 ? new Date(this.instants[events - 1]).toISOString() : undefined;
    return { events, lastEventAt, projection: await this.projectionAt(events) };
  }

  /** How many events are indexed and how many checkpoints hold folds (for the bench and logs). */
  get size(): { events: number; checkpoints: number; spacing: number } {
    return { events: this.instants.length, checkpoints: this.checkpoints.length, spacing: this.spacing };
  }

  /** One reader of the store's tail at a time; callers that arrive meanwhile share its result. */
  private catchUp(): Promise<void> {
    this.extending ??= this.extend().finally(() => (this.extending = undefined));
    return this.extending;
  }

  private async extend(): Promise<void> {
    const before = this.instants.length;
    for (;;) {
      const { events, next } = await this.source.read(this.headAfter, this.limits.indexPage);
      for (const envelope of events) await this.index(envelope);
      this.headAfter = next;
      const lastCheckpoint = this.checkpoints[this.checkpoints.length - 1];
      if (this.instants.length - lastCheckpoint.events >= this.spacing) this.addCheckpoint();
      if (events.length < this.limits.indexPage) break;
    }
    if (this.instants.length > before) {
      this.tip = { events: this.instants.length, after: this.headAfter, projection: copyOf(this.head) };
      this.logger.debug({ events: this.instants.length, checkpoints: this.checkpoints.length }, 'time-travel index extended');
    }
  }

  private async index(envelope: EventEnvelope): Promise<void> {
    const outcome = await applyEnvelope(this.head, envelope);
    if (outcome.skipped !== undefined) this.logger.warn({ eventId: envelope.id, reason: outcome.skipped }, 'time travel passes over an event that cannot apply');
    const instant = Date.parse(envelope.occurredAt);
    const previous = this.instants[this.instants.length - 1] ?? Number.NEGATIVE_INFINITY;
    this.instants.push(Number.isNaN(instant) ? previous : Math.max(previous, instant));
  }

  private addCheckpoint(): void {
    this.checkpoints.push({ events: this.instants.length, after: this.headAfter, projection: copyOf(this.head) });
    if (this.checkpoints.length <= this.limits.maxCheckpoints) return;
    this.checkpoints = this.checkpoints.filter((_, i) => i % 2 === 0);
    this.spacing *= 2;
  }

  private async projectionAt(events: number): Promise<MemoryProjection> {
    if (events === this.tip.events) return this.tip.projection;
    const cached = this.recent.get(events);
    if (cached) {
      this.recent.delete(events);
      this.recent.set(events, cached);
      return cached;
    }
    const base = nearestAtOrBefore(this.checkpoints, events);
    const projection = copyOf(base.projection);
    let after = base.after;
    for (let remaining = events - base.events; remaining > 0;) {
      const page = await this.source.read(after, Math.min(STORE_PAGE, remaining));
      // The store is append-only: fewer events than indexed means it is not the store we indexed.
      if (page.events.length === 0) throw new Error(`the event store ended ${remaining} events before position ${events}, which it held before`);
      for (const envelope of page.events) await applyEnvelope(projection, envelope);
      remaining -= page.events.length;
      after = page.next;
    }
    this.recent.set(events, projection);
    if (this.recent.size > this.limits.recentFolds) this.recent.delete(this.recent.keys().next().value as number);
    return projection;
  }
}

/** Entries are replaced, never mutated, by a fold: copying the maps is enough to fold on without touching the original. */
function copyOf(source: MemoryProjection): MemoryProjection {
  const copy = new MemoryProjection();
  for (const [key, value] of source.streams) copy.streams.set(key, value);
  for (const [key, value] of source.servers) copy.servers.set(key, value);
  for (const [key, value] of source.tools) copy.tools.set(key, value);
  return copy;
}

/** How many of the (non-decreasing) instants are at or before `at`. */
export function countAtOrBefore(instants: readonly number[], at: number): number {
  let low = 0;
  let high = instants.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (instants[middle] <= at) low = middle + 1;
    else high = middle;
  }
  return low;
}

function nearestAtOrBefore(checkpoints: readonly Snapshot[], events: number): Snapshot {
  let low = 0;
  let high = checkpoints.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >>> 1;
    if (checkpoints[middle].events <= events) low = middle;
    else high = middle - 1;
  }
  return checkpoints[low];
}
