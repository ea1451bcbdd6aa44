/** What the edge reports for every tools/call it saw, whether or not it reached the upstream. */
export type CallOutcome = 'ok' | 'tool_error' | 'upstream_error';

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
}

export interface ToolCallRefusedData {
  principal: string;
  tenant?: string;
  sessionId?: string;
  /** The name as the caller sent it: a refused probe is evidence too. */
  tool: string;
  version?: string;
  reason: RefusalReason;
  detail: string;
}

export type ToolCallCompleted = { type: 'ToolCallCompleted'; version: 1; data: ToolCallCompletedData };
export type ToolCallRefused = { type: 'ToolCallRefused'; version: 1; data: ToolCallRefusedData };
export type CallEvent = ToolCallCompleted | ToolCallRefused;
export type CallEventType = CallEvent['type'];
