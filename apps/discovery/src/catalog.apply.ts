import { evolveCatalogEntry, withUpstream } from '@estate/catalog';
import {
  checkEnvelope, CURRENT_REGISTRY_EVENT_VERSIONS, type CatalogEntry, type EventEnvelope, type RegistryEvent, type ServerRegisteredData,
} from '@estate/events';

/** What applying an event needs to read and write; backed by PostgreSQL live and by maps in a rebuild. */
export interface ProjectionTarget {
  streamPosition(streamId: string): Promise<number | undefined>;
  setStreamPosition(streamId: string, position: number): Promise<void>;
  server(name: string): Promise<ServerRegisteredData | undefined>;
  upsertServer(server: ServerRegisteredData): Promise<void>;
  tool(name: string): Promise<CatalogEntry | undefined>;
  toolsOfServer(server: string): Promise<CatalogEntry[]>;
  upsertTool(entry: CatalogEntry): Promise<void>;
}

/** What applying a message did: the tools whose entry changed, or why the message was passed over. */
export type ApplyOutcome = { touched: string[]; skipped?: undefined } | { touched: []; skipped: string };

/**
 * Apply one registry event exactly once: an event at or below the stream's applied position is a
 * redelivery and changes nothing. A message that can never apply (not an envelope, an unknown
 * type, a payload off its schema, a change to a tool never published) is reported as skipped
 * instead of thrown, so one poison message cannot stall the consumer or a rebuild forever.
 */
export async function applyEnvelope(target: ProjectionTarget, raw: unknown): Promise<ApplyOutcome> {
  const checked = checkEnvelope(raw, REGISTRY_TYPES);
  if (!checked.ok) return { touched: [], skipped: checked.problem };
  const { envelope } = checked;
  const event = { type: envelope.type, version: envelope.version, data: envelope.data } as RegistryEvent;
  const applied = await target.streamPosition(envelope.stream);
  if (applied !== undefined && envelope.position <= applied) return { touched: [] };
  const outcome = await applyEvent(target, event, envelope);
  if (outcome.skipped === undefined) await target.setStreamPosition(envelope.stream, envelope.position);
  return outcome;
}

export const REGISTRY_TYPES: ReadonlySet<string> = new Set(Object.keys(CURRENT_REGISTRY_EVENT_VERSIONS));

async function applyEvent(target: ProjectionTarget, event: RegistryEvent, envelope: EventEnvelope): Promise<ApplyOutcome> {
  if (event.type === 'ServerRegistered') {
    await target.upsertServer(event.data);
    const tools = await target.toolsOfServer(event.data.name);
    for (const tool of tools) await target.upsertTool(withUpstream(tool, event.data));
    return { touched: tools.map((t) => t.name) };
  }
  const name = toolNameOf(event);
  const current = await target.tool(name);
  const refused = refusedChange(event, current);
  if (refused !== undefined) return { touched: [], skipped: refused };
  const serverName = event.type === 'ToolVersionPublished' ? event.data.spec.upstream.server : current?.upstream.server;
  const server = serverName === undefined ? undefined : await target.server(serverName);
  await target.upsertTool(evolveCatalogEntry(current, event, envelope.position, envelope.occurredAt, server));
  return { touched: [name] };
}

export type ToolEvent = Exclude<RegistryEvent, { type: 'ServerRegistered' }>;

export function toolNameOf(event: ToolEvent): string {
  return event.type === 'ToolVersionPublished' ? event.data.spec.name : event.data.name;
}

/**
 * The stream and tool a raw registry message would touch, read without checking the message (a
 * batch reads their rows up front). A malformed message may name nothing or a wrong row: applying
 * it checks it, and reads what it needs then.
 */
export function rowsNamedBy(raw: unknown): { stream?: string; tool?: string; server?: string } {
  if (typeof raw !== 'object' || raw === null) return {};
  const { stream, type, data } = raw as { stream?: unknown; type?: unknown; data?: unknown };
  const named = { stream: typeof stream === 'string' ? stream : undefined };
  if (typeof type !== 'string' || type === 'ServerRegistered' || !REGISTRY_TYPES.has(type) || typeof data !== 'object' || data === null) return named;
  const event = { type, data } as ToolEvent;
  const tool = (() => {
    try {
      return toolNameOf(event);
    } catch {
      return undefined; // a published event without its spec
    }
  })();
  // A publish reads the server its spec names (an upstream moved since is taken from there).
  const server = event.type === 'ToolVersionPublished' ? (event.data.spec as { upstream?: { server?: unknown } } | undefined)?.upstream?.server : undefined;
  return { ...named, tool: typeof tool === 'string' ? tool : undefined, server: typeof server === 'string' ? server : undefined };
}

/** Why a tool event cannot apply to the tool's current entry: a lifecycle change to a version never published. */
export function refusedChange(event: ToolEvent, current: CatalogEntry | undefined): string | undefined {
  if (event.type === 'ToolVersionPublished' || current?.versions.some((v) => v.version === event.data.version)) return undefined;
  return `${event.type} for ${toolNameOf(event)}@${event.data.version}, which the catalog has never seen published`;
}

/** An in-memory target, for rebuilding the projection aside before the swap. */
export class MemoryProjection implements ProjectionTarget {
  readonly streams = new Map<string, number>();
  readonly servers = new Map<string, ServerRegisteredData>();
  readonly tools = new Map<string, CatalogEntry>();

  async streamPosition(streamId: string) { return this.streams.get(streamId); }
  async setStreamPosition(streamId: string, position: number) { this.streams.set(streamId, position); }
  async server(name: string) { return this.servers.get(name); }
  async upsertServer(server: ServerRegisteredData) { this.servers.set(server.name, server); }
  async tool(name: string) { return this.tools.get(name); }
  async toolsOfServer(server: string) { return [...this.tools.values()].filter((t) => t.upstream.server === server); }
  async upsertTool(entry: CatalogEntry) { this.tools.set(entry.name, entry); }
}
