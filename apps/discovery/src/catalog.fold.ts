import { applyEnvelope, MemoryProjection } from './catalog.apply';

/** Where a folded value came from, for the line that reports a skipped one. */
export type FoldOrigin = { partition: number; offset: string } | { eventId: string };

/**
 * The fold a rebuild streams every event through, page after page: it keeps the catalog (servers,
 * tools, stream positions) and nothing of the events themselves, so its memory is the catalog's
 * size however long the log is.
 */
export class CatalogFold {
  readonly projection = new MemoryProjection();
  events = 0;
  private readonly order = new StreamOrder();

  constructor(private readonly skipped: (origin: FoldOrigin, reason: string) => void) {}

  /** `checkOrder`: a log is checked for gaps; the event store is the order itself. */
  async apply(value: unknown, origin: FoldOrigin, checkOrder: boolean): Promise<void> {
    if (checkOrder) this.order.see(value);
    const outcome = await applyEnvelope(this.projection, value);
    if (outcome.skipped !== undefined) this.skipped(origin, outcome.skipped);
    this.events += 1;
  }

  /** Why the log cannot be trusted to fold (an event ahead of its predecessors), if it cannot. */
  get outOfOrder(): string | undefined {
    return this.order.problem;
  }

  noteProblem(problem: string): void {
    this.order.problem ??= problem;
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
