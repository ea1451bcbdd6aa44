import { Inject, Injectable } from '@nestjs/common';
import type { ServerRegisteredData } from '@estate/events';
import { CommandHandler } from '../command/command.handler';
import type { Outcome } from '../command/outcome';
import { TOOL_DECIDER } from '../command/registry.tokens';
import type { Decider } from '../domain/decider';
import { registryError, type RegistryError } from '../domain/registry.errors';
import { serverDecider, serverStreamId } from '../domain/server.decider';
import type { ToolCommand, ToolEvent, ToolState } from '../domain/tool.decider';
import type { AppendMeta } from '../store/event-store.port';
import type { RegisterServer } from './register-server.command';

/** Registers an upstream server; the same definition again is accepted and records nothing. */
@Injectable()
export class RegisterServerHandler {
  constructor(
    @Inject(CommandHandler) private readonly commands: CommandHandler,
    @Inject(TOOL_DECIDER) private readonly tools: Decider<ToolCommand, ToolEvent, ToolState>,
  ) {}

  async execute(command: RegisterServer, meta: AppendMeta): Promise<Outcome<ServerRegisteredData>> {
    const conflict = await this.conflictOf(command.server);
    if (conflict) return { ok: false, error: conflict };
    const outcome = await this.commands.handle(serverDecider, serverStreamId(command.server.name), command, meta);
    return outcome.ok ? { ok: true, value: command.server } : outcome;
  }

  /**
   * A new name must not pass for another server's (`Bank` beside `bank`), and a namespace must be
   * free: tools a server without a namespace already published under `later.` would otherwise be
   * stuck, publishable neither through their own server (`namespace_taken`) nor through the new
   * one (`upstream_moved`).
   */
  private async conflictOf(server: ServerRegisteredData): Promise<RegistryError | undefined> {
    const lookalike = (await this.commands.streams('server:'))
      .map((stream) => stream.slice('server:'.length))
      .find((name) => name !== server.name && name.toLowerCase() === server.name.toLowerCase());
    if (lookalike !== undefined) {
      return registryError('NAMESPACE_IN_USE', `server "${lookalike}" is registered; names that differ only in case would pass for each other`);
    }
    if (server.namespace === '') return undefined;
    for (const stream of await this.commands.streams(`tool:${server.namespace}.`)) {
      const { state } = await this.commands.load(this.tools, stream);
      const other = [...state.versions.values()].find((v) => v.spec.upstream.server !== server.name);
      if (other) {
        return registryError(
          'NAMESPACE_IN_USE',
          `"${server.namespace}." already holds ${other.spec.name}, served by server "${other.spec.upstream.server}": register this server under another name, or without a namespace`,
        );
      }
    }
    return undefined;
  }
}
