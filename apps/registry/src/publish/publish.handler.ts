import { Inject, Injectable } from '@nestjs/common';
import type { ServerRegisteredData } from '@estate/events';
import { CommandHandler, type HandleOptions } from '../command/command.handler';
import type { Outcome } from '../command/outcome';
import { CLASSIFY_CHANGE, TOOL_DECIDER } from '../command/registry.tokens';
import type { Decider } from '../domain/decider';
import { registryError, type RegistryError } from '../domain/registry.errors';
import { serverDecider, serverStreamId } from '../domain/server.decider';
import { toolStreamId, type ClassifyChange, type ToolCommand, type ToolEvent, type ToolState } from '../domain/tool.decider';
import type { AppendMeta } from '../store/event-store.port';
import { publishAnswer, publishToolVersion, toolNameOf, upstreamServerOf, type PublishAnswer, type PublishToolVersion } from './publish.command';

/** Servers a publish may name at once; each registration is a few hundred bytes. */
const KNOWN_SERVERS = 10_000;

/** Publishes a tool version: the spec is judged against its server and every version before it. */
@Injectable()
export class PublishHandler {
  /** A registration never changes once made (the server decider refuses a different one), so it is kept. */
  private readonly servers = new Map<string, ServerRegisteredData>();

  constructor(
    @Inject(CommandHandler) private readonly commands: CommandHandler,
    @Inject(TOOL_DECIDER) private readonly tools: Decider<ToolCommand, ToolEvent, ToolState>,
    /** The classifier inside `tools` (ESTATE_COMPAT bound in): the answer's compat report asks it the same pair again. */
    @Inject(CLASSIFY_CHANGE) private readonly classify: ClassifyChange,
  ) {}

  async execute(spec: unknown, meta: AppendMeta, options: HandleOptions = {}): Promise<Outcome<PublishAnswer>> {
    const command = publishToolVersion(spec, await this.server(upstreamServerOf(spec)));
    const name = toolNameOf(spec);
    if (!name) return this.refuseNameless(command);
    const taken = await this.namespaceTakenFrom(name, command.server);
    if (taken) return { ok: false, error: taken };
    const outcome = await this.commands.handle(this.tools, toolStreamId(name), command, meta, options);
    return outcome.ok ? { ok: true, value: publishAnswer(outcome.value.events, outcome.value.state, this.classify) } : outcome;
  }

  /**
   * A name under another server's namespace ("bank.…") belongs to that server, even when the
   * upstream named is a server without a namespace, which may otherwise publish any name.
   */
  private async namespaceTakenFrom(name: string, upstream: ServerRegisteredData | undefined): Promise<RegistryError | undefined> {
    const dot = name.indexOf('.');
    if (dot <= 0 || upstream === undefined || upstream.namespace !== '') return undefined;
    const prefix = name.slice(0, dot);
    // Case counts too: `BANK.x` beside `bank.*` would pass for the bank's own tool in an agent's list.
    const ownerName = (await this.commands.streams('server:'))
      .map((stream) => stream.slice('server:'.length))
      .find((server) => server.toLowerCase() === prefix.toLowerCase() && server !== upstream.name);
    const owner = ownerName === undefined ? undefined : await this.server(ownerName);
    if (owner === undefined || owner.namespace !== owner.name) return undefined;
    return registryError('CONTRACT_REJECTED', 'the tool spec breaks publishing rules', {
      issues: [{ path: '$.name', code: 'namespace_taken', message: `"${owner.name}." is the namespace of server "${owner.name}": its tools are published through that server` }],
    });
  }

  /** A server not registered yet is read again next time: it may be registered by then. */
  private async server(name: string | undefined): Promise<ServerRegisteredData | undefined> {
    if (name === undefined) return undefined;
    const known = this.servers.get(name);
    if (known) return known;
    const { state } = await this.commands.load(serverDecider, serverStreamId(name));
    if (state.status !== 'registered') return undefined;
    if (this.servers.size < KNOWN_SERVERS) this.servers.set(name, state.server);
    return state.server;
  }

  /** Without a usable name there is no stream to load: decide against an empty one so every issue is reported. */
  private refuseNameless(command: PublishToolVersion): Outcome<PublishAnswer> {
    const decision = this.tools.decide(command, this.tools.initialState());
    if (!decision.ok) return decision;
    return { ok: false, error: registryError('INVALID_SPEC', 'the tool spec is malformed', { issues: [{ path: '$.name', code: 'invalid_name', message: 'name must be 1-128 characters' }] }) };
  }
}
