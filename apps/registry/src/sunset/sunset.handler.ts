import { Inject, Injectable } from '@nestjs/common';
import { CommandHandler } from '../command/command.handler';
import { TOOL_DECIDER } from '../command/registry.tokens';
import type { Decider } from '../domain/decider';
import type { ToolCommand, ToolEvent, ToolState } from '../domain/tool.decider';
import { reachSunsets } from './sunset.command';

const TOOL_STREAMS = 'tool:';

/** The registry's own periodic command: a sunset date is a promise, kept by retiring the version. */
@Injectable()
export class SunsetHandler {
  constructor(
    @Inject(CommandHandler) private readonly commands: CommandHandler,
    @Inject(TOOL_DECIDER) private readonly tools: Decider<ToolCommand, ToolEvent, ToolState>,
  ) {}

  /** Retires every deprecated version whose sunset has passed; returns how many it retired. */
  async sweep(now: Date): Promise<number> {
    let retired = 0;
    const meta = { actor: 'estate-registry', correlationId: `sunset-${now.toISOString()}` };
    for (const stream of await this.commands.streams(TOOL_STREAMS)) {
      const outcome = await this.commands.handle(this.tools, stream, reachSunsets(stream.slice(TOOL_STREAMS.length), now), meta);
      // A stream that keeps conflicting is swept again next time; the others go on.
      if (outcome.ok) retired += outcome.value.events.filter((e) => e.type === 'ToolVersionRetired').length;
    }
    return retired;
  }
}
