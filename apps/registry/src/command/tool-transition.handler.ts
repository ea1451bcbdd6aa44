import { Inject } from '@nestjs/common';
import { CommandHandler } from './command.handler';
import { firstEvent, type Outcome } from './outcome';
import { TOOL_DECIDER } from './registry.tokens';
import type { Decider } from '../domain/decider';
import { toolStreamId, type ToolCommand, type ToolEvent, type ToolState } from '../domain/tool.decider';
import type { AppendMeta } from '../store/event-store.port';

/**
 * Deprecate, retire and quarantine differ only in their command (the decider tells them apart):
 * each answers the one event it recorded, or null when the version already was so.
 */
export abstract class ToolTransitionHandler<C extends Extract<ToolCommand, { name: string; version: string }>> {
  constructor(
    @Inject(CommandHandler) private readonly commands: CommandHandler,
    @Inject(TOOL_DECIDER) private readonly tools: Decider<ToolCommand, ToolEvent, ToolState>,
  ) {}

  async execute(command: C, meta: AppendMeta): Promise<Outcome<ToolEvent | null>> {
    return firstEvent(await this.commands.handle(this.tools, toolStreamId(command.name), command, meta));
  }
}
