import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { CatalogEntry, CatalogVersion } from '@estate/events';
import type { CatalogReplica } from '../catalog/catalog.replica';
import type { CallPolicy } from '../policy/call.policy';
import { nextRetryDelay } from '../policy/retry.policy';
import type { EdgeSession } from '../sessions/edge-session';
import { UpstreamFailure, type UpstreamCallOptions, type UpstreamPool } from '../upstream/upstream.pool';
import { tooLargeResult, upstreamFailureResult } from './call-results';
import type { CallRecords } from './call.records';
import { unknownTool } from './wire-error';

export interface ForwardOptions {
  repaired: number;
  signal?: AbortSignal;
  options?: UpstreamCallOptions;
}

/** The last step: the upstream call, its retries, and the result-size limit. */
export class UpstreamStep {
  constructor(
    private readonly replica: CatalogReplica,
    private readonly upstreams: UpstreamPool,
    private readonly policy: CallPolicy,
    private readonly records: CallRecords,
    private readonly timeoutMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  async forward(session: EdgeSession, entry: CatalogEntry, version: CatalogVersion, args: Record<string, unknown>, call: ForwardOptions): Promise<CallToolResult> {
    const { repaired, signal } = call;
    const started = this.now();
    const { spec } = version;
    let attempts = 0;
    for (;;) {
      attempts += 1;
      try {
        await this.upstreams.ready(entry.upstream);
        // Opening the connection runs drift detection: the version may have just been quarantined.
        if (this.replica.isQuarantined(spec.name, version.version)) {
          this.records.refuse(session, spec.name, version.version, 'quarantined', 'quarantined on upstream drift');
          throw unknownTool(spec.name);
        }
        const result = await this.upstreams.call(entry.upstream, spec.upstream.tool, args, this.timeoutMs, signal, { ...call.options, sessionId: session.id });
        return this.finish(session, version, result, started, attempts, repaired);
      } catch (error) {
        if (!(error instanceof UpstreamFailure)) throw error;
        const delay = nextRetryDelay(spec.sideEffect, error.kind, attempts);
        if (delay !== undefined && !signal?.aborted) {
          await new Promise((resolve) => setTimeout(resolve, delay));
          continue;
        }
        this.records.complete(session, spec.name, version.version, 'upstream_error', this.now() - started, attempts, repaired);
        return upstreamFailureResult(spec.name, error.message, attempts);
      }
    }
  }

  private finish(session: EdgeSession, version: CatalogVersion, result: CallToolResult, started: number, attempts: number, repaired: number): CallToolResult {
    const { spec } = version;
    const oversized = this.policy.resultTooLarge(result);
    if (oversized) {
      this.records.refuse(session, spec.name, version.version, 'too_large', `result was ${oversized.bytes} bytes (limit ${oversized.limit})`);
      return tooLargeResult('result', spec.name, oversized.bytes, oversized.limit);
    }
    this.records.complete(session, spec.name, version.version, result.isError ? 'tool_error' : 'ok', this.now() - started, attempts, repaired);
    return result;
  }
}
