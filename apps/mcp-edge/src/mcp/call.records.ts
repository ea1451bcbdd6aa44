import type { RefusalReason } from '@estate/events';
import type { CallRecorder } from '../calls/call.recorder';
import type { EdgeSession } from '../sessions/edge-session';

export type CompletedOutcome = 'ok' | 'tool_error' | 'upstream_error';

/** Builds the estate.calls events for one session's calls. */
export class CallRecords {
  constructor(private readonly recorder: CallRecorder) {}

  refuse(session: EdgeSession, tool: string, version: string | undefined, reason: RefusalReason, detail: string): void {
    this.recorder.record({
      type: 'ToolCallRefused',
      version: 1,
      data: { principal: session.principal.id, tenant: session.principal.tenant, sessionId: session.id, tool, version, reason, detail },
    }, session.id);
  }

  /** `failure`: for an upstream_error, the reference given to the caller and the upstream's own account. */
  complete(
    session: EdgeSession, tool: string, version: string, outcome: CompletedOutcome, durationMs: number, attempts: number, repaired: number,
    failure?: { ref: string; detail: string },
  ): void {
    this.recorder.record({
      type: 'ToolCallCompleted',
      version: 1,
      data: {
        principal: session.principal.id, tenant: session.principal.tenant, sessionId: session.id,
        tool, version, outcome, durationMs: Math.max(0, durationMs), attempts, repaired, ...failure,
      },
    }, session.id);
  }
}
