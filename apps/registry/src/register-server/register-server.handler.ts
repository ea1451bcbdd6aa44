import { Inject, Injectable } from '@nestjs/common';
import type { ServerRegisteredData } from '@estate/events';
import { CommandHandler } from '../command/command.handler';
import type { Outcome } from '../command/outcome';
import { serverDecider, serverStreamId } from '../domain/server.decider';
import type { AppendMeta } from '../store/event-store.port';
import type { RegisterServer } from './register-server.command';

/** Registers an upstream server; the same definition again is accepted and records nothing. */
@Injectable()
export class RegisterServerHandler {
  constructor(@Inject(CommandHandler) private readonly commands: CommandHandler) {}

  async execute(command: RegisterServer, meta: AppendMeta): Promise<Outcome<ServerRegisteredData>> {
    const outcome = await this.commands.handle(serverDecider, serverStreamId(command.server.name), command, meta);
    return outcome.ok ? { ok: true, value: command.server } : outcome;
  }
}
