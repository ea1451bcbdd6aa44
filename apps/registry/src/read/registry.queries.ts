import { Inject, Injectable } from '@nestjs/common';
import type { Principal } from '@estate/contracts';
import type { ServerRegisteredData } from '@estate/events';
import { CommandHandler } from '../command/command.handler';
import { CLASSIFY_CHANGE, TOOL_DECIDER } from '../command/registry.tokens';
import type { Decider } from '../domain/decider';
import {
  serverViewFor, toolSummaryFor, toolViewFor, versionViewFor, type AgentVersionView, type ToolSummary, type ToolView,
} from '../domain/registry-read.policy';
import { serverDecider, serverStreamId } from '../domain/server.decider';
import { toolStreamId, type ClassifyChange, type ToolCommand, type ToolEvent, type ToolState, type ToolVersionState } from '../domain/tool.decider';
import { versionDiffFor, type VersionDiff } from '../domain/version-diff';

const TOOL_STREAMS = 'tool:';

/**
 * The registry's reads, each answering only what the viewer may see (domain/registry-read.policy.ts).
 * undefined means "not found" for a missing record and a hidden one alike.
 */
@Injectable()
export class RegistryQueries {
  constructor(
    @Inject(CommandHandler) private readonly commands: CommandHandler,
    @Inject(TOOL_DECIDER) private readonly tools: Decider<ToolCommand, ToolEvent, ToolState>,
    @Inject(CLASSIFY_CHANGE) private readonly classify: ClassifyChange,
  ) {}

  /** Every tool the viewer may read, in stream order. */
  async listTools(viewer: Principal): Promise<ToolSummary[]> {
    const names = (await this.commands.streams(TOOL_STREAMS)).map((s) => s.slice(TOOL_STREAMS.length));
    const states = await Promise.all(names.map((name) => this.tool(name)));
    return names.flatMap((name, i) => toolSummaryFor(viewer, name, states[i]) ?? []);
  }

  async readTool(viewer: Principal, name: string): Promise<ToolView | undefined> {
    return toolViewFor(viewer, name, await this.tool(name));
  }

  async readVersion(viewer: Principal, name: string, version: string): Promise<ToolVersionState | AgentVersionView | undefined> {
    return versionViewFor(viewer, await this.tool(name), version);
  }

  /** Governance only, which the route demands (a diff shows every governed field). */
  async diffVersion(name: string, version: string): Promise<VersionDiff | undefined> {
    return versionDiffFor(name, await this.tool(name), version, this.classify);
  }

  async readServer(viewer: Principal, name: string): Promise<ServerRegisteredData | undefined> {
    // Loaded for everyone, so a refusal costs what an answer costs.
    const { state } = await this.commands.load(serverDecider, serverStreamId(name));
    return serverViewFor(viewer, state.status === 'registered' ? state.server : undefined);
  }

  private async tool(name: string): Promise<ToolState> {
    return (await this.commands.load(this.tools, toolStreamId(name))).state;
  }
}
