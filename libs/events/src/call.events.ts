/**
 * How a tools/call that reached the upstream ended. `cancelled`: its caller gave up first
 * (notifications/cancelled, a closed connection, a deleted session), which says nothing about the upstream.
 */
export type CallOutcome = 'ok' | 'tool_error' | 'upstream_error' | 'cancelled';

export type RefusalReason =
  | 'unknown_tool'
  | 'invalid_params'
  | 'invalid_arguments'
  | 'rate_limited'
  | 'confirmation_required'
  | 'too_large'
  | 'quarantined';

export interface ToolCallCompletedData {
  principal: string;
  tenant?: string;
  sessionId?: string;
  tool: string;
  version: string;
  outcome: CallOutcome;
  durationMs: number;
  attempts: number;
  repaired: number;
  /** For an upstream_error: the reference the caller was given, and what the upstream actually said or did; for a cancelled call, who cancelled it. */
  ref?: string;
  detail?: string;
}

export interface ToolCallRefusedData {
  principal: string;
  tenant?: string;
  sessionId?: string;
  /**
   * The name as the caller sent it: a refused probe is evidence too. A name PostgreSQL cannot
   * store is escaped (`\u0000`, `\ud800`) and one longer than 256 characters is cut, with
   * `toolAsSent` saying so.
   */
  tool: string;
  toolAsSent?: ToolNameAsSent;
  version?: string;
  reason: RefusalReason;
  detail: string;
}

/** How a recorded tool name differs from the one sent, and a digest to match the original by. */
export interface ToolNameAsSent {
  /** Length of the name as sent, in UTF-16 code units. */
  length: number;
  escaped: boolean;
  truncated: boolean;
  /** sha256 hex of the escaped name, whole. */
  sha256: string;
}

/** The two requests an upstream server may send back through the edge to a client. */
export type UpstreamRequestMethod = 'sampling/createMessage' | 'elicitation/create';

export type UpstreamRequestRefusalReason =
  | 'not_allowed'
  | 'no_call_in_flight'
  | 'ambiguous_caller'
  | 'client_not_capable';

/** An upstream's sampling or elicitation request the edge handed to the client whose call caused it. */
export interface UpstreamRequestRelayedData {
  principal: string;
  tenant?: string;
  sessionId?: string;
  server: string;
  method: UpstreamRequestMethod;
  /** The tool whose call was in flight, as the client named it. */
  tool?: string;
  /** answered: the client returned a result; failed: it returned an error or did not answer. */
  outcome: 'answered' | 'failed';
}

/** An upstream's sampling or elicitation request the edge refused; `principal` is `upstream:<server>` when no caller could be named. */
export interface UpstreamRequestRefusedData {
  principal: string;
  tenant?: string;
  sessionId?: string;
  server: string;
  method: UpstreamRequestMethod;
  tool?: string;
  reason: UpstreamRequestRefusalReason;
  detail: string;
}

export type ToolCallCompleted = { type: 'ToolCallCompleted'; version: 1; data: ToolCallCompletedData };
export type ToolCallRefused = { type: 'ToolCallRefused'; version: 1; data: ToolCallRefusedData };
export type UpstreamRequestRelayed = { type: 'UpstreamRequestRelayed'; version: 1; data: UpstreamRequestRelayedData };
export type UpstreamRequestRefused = { type: 'UpstreamRequestRefused'; version: 1; data: UpstreamRequestRefusedData };
export type CallEvent = ToolCallCompleted | ToolCallRefused | UpstreamRequestRelayed | UpstreamRequestRefused;
export type CallEventType = CallEvent['type'];

/** The version each call event is written at today (the AsyncAPI document and the feed list them). */
export const CURRENT_CALL_EVENT_VERSIONS: { readonly [K in CallEventType]: number } = {
  ToolCallCompleted: 1,
  ToolCallRefused: 1,
  UpstreamRequestRelayed: 1,
  UpstreamRequestRefused: 1,
};
