import { createHash } from 'node:crypto';
import type { CallOutcome, RefusalReason, ToolNameAsSent } from '@estate/events';
import { boundText } from '@estate/platform';
import type { CallRecorder } from '../calls/call.recorder';
import type { CallerContext } from './caller.context';

export type CompletedOutcome = CallOutcome;

/** Longest tool name recorded as sent; no published name is longer (the registry allows 128). */
const MAX_RECORDED_NAME = 256;
/** A refusal's detail may quote the name; it is bounded alike. */
const MAX_DETAIL = 1024;

/** Builds the estate.calls events for one session's calls. */
export class CallRecords {
  constructor(private readonly recorder: CallRecorder) {}

  /** Any name an agent can send is recorded: escaped and bounded, with a note of how it was sent. */
  refuse(session: CallerContext, tool: string, version: string | undefined, reason: RefusalReason, detail: string): void {
    const name = boundText(tool, MAX_RECORDED_NAME);
    const asSent: ToolNameAsSent | undefined = name.escaped || name.truncated
      ? { length: tool.length, escaped: name.escaped, truncated: name.truncated, sha256: createHash('sha256').update(boundText(tool, Infinity).text).digest('hex') }
      : undefined;
    this.recorder.record({
      type: 'ToolCallRefused',
      version: 1,
      data: {
        principal: session.principal.id, tenant: session.principal.tenant, ...(session.sessionId === undefined ? {} : { sessionId: session.sessionId }),
        tool: name.text, ...(asSent ? { toolAsSent: asSent } : {}), version, reason, detail: boundText(detail, MAX_DETAIL).text,
      },
    }, session.id);
  }

  /** `failure`: for an upstream_error, the reference given to the caller and the upstream's own account; for a cancelled call, who cancelled. */
  complete(
    session: CallerContext, tool: string, version: string, outcome: CompletedOutcome, durationMs: number, attempts: number, repaired: number,
    failure?: { ref?: string; detail: string },
  ): void {
    this.recorder.record({
      type: 'ToolCallCompleted',
      version: 1,
      // Keys in sorted order, as audit stores them (callEnvelopeText); an undefined one is left out of the JSON.
      data: {
        attempts, detail: failure?.detail, durationMs: Math.max(0, durationMs), outcome, principal: session.principal.id, ref: failure?.ref, repaired,
        sessionId: session.sessionId, tenant: session.principal.tenant, tool, version,
      },
    }, session.id);
  }
}
