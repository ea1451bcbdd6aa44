/** One principal that called a version in the window before its deprecation. */
export interface DeprecationCaller {
  principal: string;
  /** The caller's tenant, when its token named one: the same subject in two tenants is two callers. */
  tenant?: string;
  /** Completed and refused calls that resolved to the version, in the window. */
  calls: number;
  lastCallAt: string;
}

/**
 * Recorded by audit after a `ToolVersionDeprecated`: who called that version in the `windowDays`
 * before it was recorded, so an owner (through the feed or a webhook) can tell them. A fact of its
 * own, following the deprecation in the trail, because a recorded entry is never edited.
 */
export interface ToolVersionDeprecationCallersData {
  name: string;
  version: string;
  /** The `ToolVersionDeprecated` event this answers. */
  deprecationEventId: string;
  windowDays: number;
  /** Calls at or after `from` and at or before `to` count. */
  from: string;
  to: string;
  /** Most recent caller first; at most a bounded number (`total` says how many there were). */
  callers: DeprecationCaller[];
  total: number;
}

export type ToolVersionDeprecationCallers = { type: 'ToolVersionDeprecationCallers'; version: 1; data: ToolVersionDeprecationCallersData };
