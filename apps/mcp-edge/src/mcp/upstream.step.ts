import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { CatalogEntry, CatalogVersion } from '@estate/events';
import type { LineLogger, Logger } from '@estate/platform';
import type { CatalogReplica } from '../catalog/catalog.replica';
import type { CallPolicy } from '../policy/call.policy';
import { cancellationDetail, type CallCancellation } from '../upstream/call.cancellation';
import { nextRetryDelay } from '../policy/retry.policy';
import type { CallerContext } from './caller.context';
import { failureRef, outputSchemaProblems, stripEstateMeta } from '../upstream/upstream-answer.guard';
import { UpstreamFailure, type UpstreamCallOptions, type UpstreamPool } from '../upstream/upstream.pool';
import { brokenContractResult, tooLargeResult, toolError, upstreamFailureResult } from './call-results';
import type { CallRecords } from './call.records';
import { unknownTool } from './wire-error';

export interface ForwardOptions {
  repaired: number;
  cancellation?: CallCancellation;
  options?: UpstreamCallOptions;
  /** The request's own logger (its session, request and correlation ids); the step's otherwise. */
  log?: LineLogger;
}

/** Told when an upstream's answer breaks the published output schema: the contract drifted. */
export type OutputDriftListener = (name: string, version: string, problems: string[]) => void;

/** What the audit detail keeps of an upstream's own words: enough to diagnose, bounded. */
const DETAIL_CHARS = 1000;

interface Attempt {
  session: CallerContext;
  version: CatalogVersion;
  started: number;
  attempts: number;
  repaired: number;
  log: LineLogger;
}

/**
 * The last step: the upstream call, its retries, and what comes back checked as untrusted input —
 * the result-size limit, the estate's `_meta` namespace removed, structured content against the
 * published outputSchema. Upstream failures reach the caller as the estate's own short text with a
 * reference; what the upstream said goes to the audit trail and the log under that reference.
 */
export class UpstreamStep {
  private readonly driftListeners: OutputDriftListener[] = [];

  constructor(
    private readonly replica: CatalogReplica,
    private readonly upstreams: UpstreamPool,
    private readonly policy: CallPolicy,
    private readonly records: CallRecords,
    private readonly timeoutMs: number,
    private readonly logger: Logger,
    private readonly now: () => number = () => performance.now(),
  ) {}

  onOutputDrift(listener: OutputDriftListener): void {
    this.driftListeners.push(listener);
  }

  async forward(session: CallerContext, entry: CatalogEntry, version: CatalogVersion, args: Record<string, unknown>, call: ForwardOptions): Promise<CallToolResult> {
    const { repaired, cancellation } = call;
    const attempt: Attempt = { session, version, started: this.now(), attempts: 0, repaired, log: call.log ?? this.logger };
    const { spec } = version;
    for (;;) {
      attempt.attempts += 1;
      try {
        await this.upstreams.ready(entry.upstream);
        // Opening the connection runs drift detection: the version may have just been quarantined.
        if (this.replica.isQuarantined(spec.name, version.version)) {
          this.records.refuse(session, spec.name, version.version, 'quarantined', 'quarantined on upstream drift');
          throw unknownTool(spec.name);
        }
        const result = await this.upstreams.call(entry.upstream, spec.upstream.tool, args, this.timeoutMs, cancellation, { ...call.options, sessionId: session.sessionId });
        return this.finish(attempt, result);
      } catch (error) {
        // Whatever the wait ended in (the SDK's timeout error, the abort reason), the caller ended it.
        if (cancellation?.aborted) return this.cancelled(attempt, cancellation.reason);
        if (!(error instanceof UpstreamFailure)) throw error;
        const delay = nextRetryDelay(spec.sideEffect, error.kind, attempt.attempts);
        if (delay !== undefined && !cancellation?.aborted) {
          await new Promise((resolve) => setTimeout(resolve, delay));
          continue;
        }
        const ref = this.failed(attempt, error.message, { kind: error.kind, err: error.cause ?? error });
        return upstreamFailureResult(spec.name, error.kind, ref, attempt.attempts, this.timeoutMs);
      }
    }
  }

  private finish(attempt: Attempt, raw: CallToolResult): CallToolResult {
    const { session, version } = attempt;
    const { spec } = version;
    const oversized = this.policy.resultTooLarge(raw);
    if (oversized) {
      this.records.refuse(session, spec.name, version.version, 'too_large', `result was ${oversized.bytes} bytes (limit ${oversized.limit})`);
      return tooLargeResult('result', spec.name, oversized.bytes, oversized.limit);
    }
    const result = stripEstateMeta(raw);
    const problems = outputSchemaProblems(spec, result);
    if (problems.length > 0) {
      const ref = this.failed(attempt, `structuredContent breaks the published outputSchema: ${problems.join('; ')}`, { problems });
      for (const listener of this.driftListeners) listener(spec.name, version.version, problems);
      return brokenContractResult(spec.name, ref);
    }
    this.records.complete(session, spec.name, version.version, result.isError ? 'tool_error' : 'ok', this.now() - attempt.started, attempt.attempts, attempt.repaired);
    return result;
  }

  /** A call its caller gave up on: recorded as such, and answered with a result nobody is sent (a cancelled request gets no response). */
  private cancelled(attempt: Attempt, reason: unknown): CallToolResult {
    const { session, version } = attempt;
    const detail = cancellationDetail(reason);
    attempt.log.info({ tool: version.spec.name, version: version.version, detail }, 'tools/call cancelled');
    this.records.complete(session, version.spec.name, version.version, 'cancelled', this.now() - attempt.started, attempt.attempts, attempt.repaired, { detail });
    return toolError(`${version.spec.name} was cancelled: ${detail}.`);
  }

  /** Records and logs an upstream failure under a fresh reference, which the caller is given. */
  private failed(attempt: Attempt, detail: string, log: Record<string, unknown>): string {
    const { session, version } = attempt;
    const ref = failureRef();
    const bounded = detail.length > DETAIL_CHARS ? `${detail.slice(0, DETAIL_CHARS)}…` : detail;
    attempt.log.warn({ ...log, ref, tool: version.spec.name, version: version.version, detail: bounded }, 'upstream call failed');
    this.records.complete(session, version.spec.name, version.version, 'upstream_error', this.now() - attempt.started, attempt.attempts, attempt.repaired, { ref, detail: bounded });
    return ref;
  }
}
