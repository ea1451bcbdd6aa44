import type { CallEvent, CatalogEntry, RefusalReason, UpstreamRequestRefusalReason } from '@estate/events';
import { Counter, Histogram, type Registry } from 'prom-client';

/** The label value for any tool name or version the catalog does not publish. */
export const UNKNOWN_LABEL = 'unknown';

/** Upper bounds in seconds: a cached answer in milliseconds up to an upstream near its timeout. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

const UPSTREAM_METHODS = new Set(['sampling/createMessage', 'elicitation/create']);

/** Every value the bounded labels can take, shown at zero from the start so rates and alerts see them before the first one. */
const REFUSAL_REASONS: Record<RefusalReason, true> = {
  unknown_tool: true, invalid_params: true, invalid_arguments: true, rate_limited: true, confirmation_required: true, too_large: true, quarantined: true,
};
const UPSTREAM_OUTCOMES = ['answered', 'failed', ...Object.keys({
  not_allowed: true, no_call_in_flight: true, ambiguous_caller: true, client_not_capable: true,
} satisfies Record<UpstreamRequestRefusalReason, true>).map((reason) => `refused_${reason}`)];

/** What the labels may name: only tools and versions the catalog publishes. */
export interface PublishedTools {
  get(name: string): CatalogEntry | undefined;
}

/**
 * A tool name becomes a label value only when the catalog publishes it: an agent can send any
 * string (a 3,000-character probe, a fresh name per call), and each distinct value would be a
 * new series held forever. Everything else is `unknown`; the audit trail keeps the name as sent.
 */
export function boundedToolLabels(catalog: PublishedTools, tool: string, version: string | undefined): { tool: string; version: string } {
  const entry = catalog.get(tool);
  if (!entry) return { tool: UNKNOWN_LABEL, version: UNKNOWN_LABEL };
  const known = version !== undefined && entry.versions.some((v) => v.version === version);
  return { tool: entry.name, version: known ? version : UNKNOWN_LABEL };
}

type CallLabels = { tool: string; version: string; outcome: string };

/** Distinct label sets of completed calls kept at once; past it the cache starts over (a catalog this large churns rarely). */
const MAX_LABEL_SETS = 10_000;

/**
 * The edge's call metrics, fed by every record the call recorder publishes (the one place each
 * call's outcome is known), so the pipeline itself carries no instrumentation.
 */
export class EdgeCallMetrics {
  /**
   * Completed calls by label set: one labels object per set, and the calls not yet added to the
   * counter. prom-client checks and hashes the labels on every inc and observe (~4 µs a call with
   * a fresh object each time); the count is added when the counter is read instead.
   */
  private readonly completed = new Map<string, { labels: CallLabels; pending: number }>();
  private readonly calls: Counter<'tool' | 'version' | 'outcome'>;
  private readonly duration: Histogram<'tool' | 'version' | 'outcome'>;
  private readonly refusals: Counter<'reason'>;
  private readonly upstreamRequests: Counter<'method' | 'outcome'>;

  constructor(registry: Registry, private readonly catalog: PublishedTools) {
    const registers = [registry];
    this.calls = new Counter({
      name: 'estate_tool_calls_total', help: 'tools/call requests by tool, version and outcome (refused included).', labelNames: ['tool', 'version', 'outcome'], registers,
      collect: () => this.addPendingCalls(),
    });
    this.duration = new Histogram({
      name: 'estate_tool_call_duration_seconds', help: 'Time from a tools/call reaching the edge to its answer, for calls that reached an upstream.',
      labelNames: ['tool', 'version', 'outcome'], buckets: DURATION_BUCKETS, registers,
    });
    this.refusals = new Counter({ name: 'estate_tool_call_refusals_total', help: 'tools/call requests the edge refused, by reason.', labelNames: ['reason'], registers });
    this.upstreamRequests = new Counter({ name: 'estate_upstream_requests_total', help: 'Sampling and elicitation requests from upstreams, by method and outcome.', labelNames: ['method', 'outcome'], registers });
    for (const reason of Object.keys(REFUSAL_REASONS)) this.refusals.inc({ reason }, 0);
    for (const method of UPSTREAM_METHODS) for (const outcome of UPSTREAM_OUTCOMES) this.upstreamRequests.inc({ method, outcome }, 0);
  }

  observe(event: CallEvent): void {
    switch (event.type) {
      case 'ToolCallCompleted': {
        const set = this.completedSet(event.data.tool, event.data.version, event.data.outcome);
        set.pending += 1;
        this.duration.observe(set.labels, event.data.durationMs / 1000);
        return;
      }
      case 'ToolCallRefused':
        this.calls.inc({ ...boundedToolLabels(this.catalog, event.data.tool, event.data.version), outcome: 'refused' });
        this.refusals.inc({ reason: event.data.reason });
        return;
      case 'UpstreamRequestRelayed':
        this.upstreamRequests.inc({ method: this.method(event.data.method), outcome: event.data.outcome });
        return;
      case 'UpstreamRequestRefused':
        this.upstreamRequests.inc({ method: this.method(event.data.method), outcome: `refused_${event.data.reason}` });
        return;
      default: {
        const unexpected: never = event;
        return unexpected;
      }
    }
  }

  private completedSet(tool: string, version: string, outcome: string): { labels: CallLabels; pending: number } {
    const bounded = boundedToolLabels(this.catalog, tool, version);
    const key = `${bounded.tool}\n${bounded.version}\n${outcome}`;
    let set = this.completed.get(key);
    if (!set) {
      if (this.completed.size >= MAX_LABEL_SETS) {
        this.addPendingCalls();
        this.completed.clear();
      }
      set = { labels: { tool: bounded.tool, version: bounded.version, outcome }, pending: 0 };
      this.completed.set(key, set);
    }
    return set;
  }

  /** Runs before every read of the counter (prom-client's collect). */
  private addPendingCalls(): void {
    for (const set of this.completed.values()) {
      if (set.pending === 0) continue;
      this.calls.inc(set.labels, set.pending);
      set.pending = 0;
    }
  }

  private method(method: string): string {
    return UPSTREAM_METHODS.has(method) ? method : UNKNOWN_LABEL;
  }
}
