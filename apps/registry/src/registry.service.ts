import { DEFAULT_COMPAT_POLICY, hasUnstorableText, type CompatPolicy, type Principal } from '@estate/contracts';
import type { EventEnvelope, RegistryEvent, ServerRegistered, ServerRegisteredData } from '@estate/events';
import { upcast } from '@estate/events';
import {
  decideServer, evolveServer, initialServerState, serverStreamId, type ServerState,
} from './domain/server.decider';
import {
  decideTool, evolveTool, initialToolState, toolStreamId, type ToolCommand, type ToolEvent, type ToolState, type ToolVersionState,
} from './domain/tool.decider';
import { registryError, type RegistryError } from './domain/registry.errors';
import {
  readsGovernance, serverViewFor, toolSummaryFor, toolViewFor, versionViewFor, type AgentVersionView, type ToolSummary, type ToolView,
} from './domain/registry-read.policy';
import { versionDiffFor, type VersionDiff } from './domain/version-diff';
import { publishReport, type PublishReport } from './domain/publish-report';
import { ConcurrencyConflict, EventTooLarge, type EventStore } from './store/event-store.port';

export type Outcome<T> = { ok: true; value: T } | { ok: false; error: RegistryError };

const MAX_ATTEMPTS = 4;

export interface PublishOutcome {
  name: string;
  version: string;
  bump: string;
  changes: unknown[];
  compat: PublishReport['compat'];
  published: boolean;
}

/**
 * The registry's use cases: load a stream, decide, append with the expected version, retry a
 * bounded number of times on a conflict. Authorization by scope happens here, before deciding.
 */
export class RegistryService {
  constructor(
    private readonly store: EventStore,
    /** ESTATE_COMPAT, passed to the classifier on every publish, check and diff. */
    private readonly compat: CompatPolicy = DEFAULT_COMPAT_POLICY,
  ) {}

  async registerServer(server: ServerRegisteredData, actor: Principal, correlationId: string): Promise<Outcome<ServerRegisteredData>> {
    const streamId = serverStreamId(server.name);
    return this.withRetry(async () => {
      const { state, count } = await this.loadServer(server.name);
      const decision = decideServer({ type: 'RegisterServer', server, actorScopes: actor.scopes }, state);
      if (!decision.ok) return decision;
      await this.store.append(streamId, count, decision.events, { actor: actor.id, correlationId });
      return { ok: true, value: server };
    });
  }

  async publish(spec: unknown, actor: Principal, correlationId: string, dryRun: boolean): Promise<Outcome<PublishOutcome>> {
    const denied = requireScope(actor, 'estate:publish');
    if (denied) return denied;
    const name = nameOf(spec);
    if (!name) return this.refuseNameless(spec);
    return this.withRetry(async () => {
      const [{ state, count }, server] = await Promise.all([this.loadTool(name), this.findServer(upstreamServerOf(spec))]);
      const decision = decideTool({ type: 'PublishToolVersion', spec, server, compat: this.compat }, state);
      if (!decision.ok) return decision;
      const published = decision.events[0];
      if (published.type !== 'ToolVersionPublished') throw new Error('publish decided an unexpected event');
      if (!dryRun) await this.store.append(toolStreamId(name), count, decision.events, { actor: actor.id, correlationId });
      const { spec: decided, bump } = published.data;
      const { changes, compat } = publishReport(state, decided, this.compat);
      return { ok: true, value: { name: decided.name, version: decided.version, bump, changes, compat, published: !dryRun } };
    });
  }

  /** Without a usable name there is no stream to load: decide against an empty one so every issue is reported. */
  private async refuseNameless(spec: unknown): Promise<Outcome<PublishOutcome>> {
    const decision = decideTool({ type: 'PublishToolVersion', spec, server: await this.findServer(upstreamServerOf(spec)) }, initialToolState());
    if (!decision.ok) return decision;
    return { ok: false, error: registryError('INVALID_SPEC', 'the tool spec is malformed', { issues: [{ path: '$.name', code: 'invalid_name', message: 'name must be 1-128 characters' }] }) };
  }

  async transition(command: Exclude<ToolCommand, { type: 'PublishToolVersion' }>, actor: Principal, correlationId: string): Promise<Outcome<ToolEvent | null>> {
    if (command.type !== 'QuarantineToolVersion') {
      const denied = requireScope(actor, 'estate:publish');
      if (denied) return denied;
    }
    return this.withRetry(async () => {
      const { state, count } = await this.loadTool(command.name);
      const decision = decideTool(command, state);
      if (!decision.ok) return decision;
      await this.store.append(toolStreamId(command.name), count, decision.events, { actor: actor.id, correlationId });
      return { ok: true, value: decision.events[0] ?? null };
    });
  }

  /** Retires every deprecated version whose sunset date has passed; returns how many it retired. */
  async sweepSunsets(now: Date): Promise<number> {
    let retired = 0;
    for (const stream of await this.store.listStreams('tool:')) {
      const name = stream.slice('tool:'.length);
      const outcome = await this.withRetry(async () => {
        const { state, count } = await this.loadTool(name);
        const decision = decideTool({ type: 'ReachSunsets', name, now: now.toISOString() }, state);
        if (!decision.ok) return decision;
        await this.store.append(stream, count, decision.events, { actor: 'estate-registry', correlationId: `sunset-${now.toISOString()}` });
        return { ok: true, value: decision.events.filter((e) => e.type === 'ToolVersionRetired').length };
      });
      if (outcome.ok) retired += outcome.value;
    }
    return retired;
  }

  /** Every tool the viewer may read, in stream order (see registry-read.policy.ts). */
  async listTools(viewer: Principal): Promise<ToolSummary[]> {
    const names = (await this.store.listStreams('tool:')).map((s) => s.slice('tool:'.length));
    const tools = await Promise.all(names.map((name) => this.loadTool(name)));
    return names.flatMap((name, i) => toolSummaryFor(viewer, name, tools[i].state) ?? []);
  }

  /** undefined for a missing tool and for one the viewer may not see alike. */
  async readTool(viewer: Principal, name: string): Promise<ToolView | undefined> {
    return toolViewFor(viewer, name, (await this.loadTool(name)).state);
  }

  async readVersion(viewer: Principal, name: string, version: string): Promise<ToolVersionState | AgentVersionView | undefined> {
    return versionViewFor(viewer, (await this.loadTool(name)).state, version);
  }

  /** Governance only (a diff shows every governed field); undefined for a missing version. */
  async diffVersion(viewer: Principal, name: string, version: string): Promise<Outcome<VersionDiff | undefined>> {
    if (!readsGovernance(viewer)) return { ok: false, error: registryError('FORBIDDEN', 'comparing versions needs estate:publish or estate:admin') };
    return { ok: true, value: versionDiffFor(name, (await this.loadTool(name)).state, version, this.compat) };
  }

  async readServer(viewer: Principal, name: string): Promise<ServerRegisteredData | undefined> {
    // Loaded for everyone, so a refusal costs what an answer costs.
    return serverViewFor(viewer, await this.findServer(name));
  }

  async findServer(name: string | undefined): Promise<ServerRegisteredData | undefined> {
    if (name === undefined) return undefined;
    const { state } = await this.loadServer(name);
    return state.status === 'registered' ? state.server : undefined;
  }

  private async loadTool(name: string): Promise<{ state: ToolState; count: number }> {
    const events = await this.store.readStream(toolStreamId(name));
    return { state: events.map(asRegistryEvent).reduce((s, e) => evolveTool(s, e as ToolEvent), initialToolState()), count: events.length };
  }

  private async loadServer(name: string): Promise<{ state: ServerState; count: number }> {
    const events = await this.store.readStream(serverStreamId(name));
    const state = events.map(asRegistryEvent).reduce<ServerState>((s, e) => evolveServer(s, e as ServerRegistered), initialServerState());
    return { state, count: events.length };
  }

  private async withRetry<T>(attempt: () => Promise<Outcome<T>>): Promise<Outcome<T>> {
    for (let i = 1; ; i += 1) {
      try {
        return await attempt();
      } catch (error) {
        if (error instanceof EventTooLarge) {
          return { ok: false, error: registryError('EVENT_TOO_LARGE', `${error.message}: make the contract smaller`, { bytes: error.bytes, limit: error.limit }) };
        }
        if (!(error instanceof ConcurrencyConflict)) throw error;
        if (i >= MAX_ATTEMPTS) {
          return { ok: false, error: registryError('CONCURRENCY_CONFLICT', `${error.streamId} kept changing; try again`) };
        }
      }
    }
  }
}

function asRegistryEvent(envelope: EventEnvelope): RegistryEvent {
  const current = upcast(envelope);
  return { type: current.type, version: current.version, data: current.data } as RegistryEvent;
}

function requireScope(actor: Principal, scope: string): { ok: false; error: RegistryError } | undefined {
  return actor.scopes.includes(scope) ? undefined : { ok: false, error: registryError('FORBIDDEN', `this needs the ${scope} scope`) };
}

function nameOf(spec: unknown): string | undefined {
  const name = (spec as { name?: unknown } | null)?.name;
  // A name PostgreSQL cannot store names no stream: the decider reports it with its path.
  return typeof name === 'string' && name.length > 0 && name.length <= 128 && !hasUnstorableText(name) ? name : undefined;
}

function upstreamServerOf(spec: unknown): string | undefined {
  const server = (spec as { upstream?: { server?: unknown } } | null)?.upstream?.server;
  return typeof server === 'string' && server.length <= 128 && !hasUnstorableText(server) ? server : undefined;
}
