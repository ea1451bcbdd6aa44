import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ToolVersionDriftDetectedData } from '@estate/events';
import type { Logger } from '@estate/platform';
import type { CatalogReplica } from './catalog.replica';
import { detectDrift, versionKey, type DriftFinding } from './drift.detector';

/** Tells the registry (over the bus) that a version drifted, so it quarantines it for discovery and every other edge. */
export interface DriftReporter {
  report(drift: ToolVersionDriftDetectedData): void;
}

/**
 * Watches what upstreams advertise (when a connection opens, on every upstream list_changed and
 * every re-list) and quarantines a published version whose description or input schema changed
 * underneath it: hidden and refused on this edge at once, then reported as an event the registry
 * acts on. Nothing here runs inside a tools/call.
 */
export class DriftWatcher {
  private readonly agreed = new Set<string>();
  private readonly warned = new Set<string>();
  /** The last list each upstream advertised: a version published later is checked against it. */
  private readonly advertised = new Map<string, Tool[]>();

  constructor(private readonly replica: CatalogReplica, private readonly reporter: DriftReporter, private readonly logger: Logger) {
    replica.onChange((changes) => {
      const servers = new Set(changes.flatMap((c) => (c.after ? [c.after.upstream.server] : [])));
      for (const server of servers) {
        const tools = this.advertised.get(server);
        if (tools) this.check(server, tools);
      }
    });
  }

  observe(server: string, tools: Tool[]): void {
    this.advertised.set(server, tools);
    this.check(server, tools);
  }

  /**
   * An upstream answered a call with structured content its published outputSchema forbids: it
   * serves a different contract than the one published, which is drift like a changed schema.
   * The call that saw it was answered already; the quarantine follows on the next turn.
   */
  outputBroken(name: string, version: string, problems: string[]): void {
    setImmediate(() => {
      if (this.replica.isQuarantined(name, version)) return;
      const entry = this.replica.get(name);
      const tool = entry?.versions.find((v) => v.version === version)?.spec.upstream.tool ?? name;
      this.quarantine(entry?.upstream.server ?? '', { name, version, upstreamTool: tool, fields: ['outputSchema'] }, problems);
      this.replica.flush();
    });
  }

  private check(server: string, tools: Tool[]): void {
    const verdict = detectDrift(server, this.replica.all(), tools, this.agreed);
    for (const key of verdict.agreeing) this.agreed.add(key);
    for (const finding of verdict.neverAgreed) this.warnOnce(finding);
    for (const finding of verdict.drifted) this.quarantine(server, finding);
    if (verdict.drifted.length > 0) this.replica.flush();
  }

  private quarantine(server: string, finding: DriftFinding, problems?: string[]): void {
    const reason = finding.fields[0] === 'outputSchema'
      ? `upstream drift: ${finding.upstreamTool} returned structured content that breaks the published outputSchema`
      : `upstream drift: ${finding.upstreamTool} changed ${finding.fields.join(' and ')} without a new published version`;
    this.logger.warn({ tool: finding.name, version: finding.version, fields: finding.fields, problems }, 'quarantining a drifted tool version');
    this.replica.quarantineLocally(finding.name, finding.version);
    this.reporter.report({ name: finding.name, version: finding.version, server, upstreamTool: finding.upstreamTool, fields: finding.fields, reason });
  }

  private warnOnce(finding: DriftFinding): void {
    const key = versionKey(finding.name, finding.version);
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.logger.warn({ tool: finding.name, version: finding.version, fields: finding.fields }, 'the upstream does not serve this version as published');
  }
}
