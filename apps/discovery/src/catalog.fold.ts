import { evolveCatalogEntry, withUpstream } from '@estate/catalog';
import { checkEnvelope, type CatalogEntry, type RegistryEvent, type ToolVersionDeprecatedData } from '@estate/events';
import { MemoryProjection, refusedChange, REGISTRY_TYPES, toolNameOf } from './catalog.apply';

/** Where a folded value came from, for the line that reports a skipped one: the message or the stored event itself, no object per value. */
export type FoldOrigin = { partition: number; offset: string } | { id: string };

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
  apply(value: unknown, origin: FoldOrigin, checkOrder: boolean): void {
    if (checkOrder) this.order.see(value);
    const skipped = applyToMemory(this.projection, value);
    if (skipped !== undefined) this.skipped(origin, skipped);
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

/**
 * applyEnvelope (catalog.apply.ts) step for step, on the fold's own maps and without a promise:
 * the awaits of the shared, storage-agnostic version cost a rebuild more than the fold itself.
 * Returns why the value was passed over, if it was. catalog.fold.spec.ts holds the two to the
 * same projection and the same reasons.
 */
export function applyToMemory(projection: MemoryProjection, raw: unknown): string | undefined {
  const checked = checkEnvelope(raw, REGISTRY_TYPES);
  if (!checked.ok) return checked.problem;
  const { envelope } = checked;
  const applied = projection.streams.get(envelope.stream);
  if (applied !== undefined && envelope.position <= applied) return undefined;
  // The envelope carries type, version and data: it is the event, without a copy per message.
  const event = envelope as unknown as RegistryEvent;
  if (event.type === 'ServerRegistered') {
    projection.servers.set(event.data.name, event.data);
    for (const tool of projection.tools.values()) {
      if (tool.upstream.server === event.data.name) projection.tools.set(tool.name, withUpstream(tool, event.data));
    }
  } else {
    const name = toolNameOf(event);
    const current = projection.tools.get(name);
    const refused = refusedChange(event, current);
    if (refused !== undefined) return refused;
    if (event.type === 'ToolVersionDeprecated' && current !== undefined) {
      deprecateInPlace(current, event.data, envelope.position, envelope.occurredAt);
    } else {
      const serverName = event.type === 'ToolVersionPublished' ? event.data.spec.upstream.server : current?.upstream.server;
      const server = serverName === undefined ? undefined : projection.servers.get(serverName);
      projection.tools.set(name, evolveCatalogEntry(current, event, envelope.position, envelope.occurredAt, server));
    }
  }
  projection.streams.set(envelope.stream, envelope.position);
  return undefined;
}

/**
 * evolveCatalogEntry's deprecation, done to the entry itself: a long log is mostly deprecations,
 * and copying the entry, its version list and the version for each one was a tenth of a rebuild's
 * CPU and much of its garbage. Safe because a fold's projection is its own until it is swapped in:
 * every entry and version in it was made by evolveCatalogEntry for this fold, and nothing else
 * holds them yet.
 */
function deprecateInPlace(entry: CatalogEntry, data: ToolVersionDeprecatedData, position: number, occurredAt: string): void {
  const version = entry.versions.find((v) => v.version === data.version);
  if (version !== undefined) {
    version.status = 'deprecated';
    const deprecatedAt = version.deprecation?.deprecatedAt ?? occurredAt;
    version.deprecation = { reason: data.reason, sunsetAt: data.sunsetAt, replacement: data.replacement, deprecatedAt };
  }
  entry.position = position;
}
