/** What an upstream no longer serves as published: a field of its tools/list, the whole tool, or its answers' structure. */
export type DriftField = 'description' | 'inputSchema' | 'missing' | 'outputSchema';

/**
 * An edge saw an upstream serve a published version differently from its contract. The edge
 * hides the version at once; the registry consumes this event and quarantines the version for
 * every edge. Travels on `estate.drift`, keyed by tool name.
 */
export interface ToolVersionDriftDetectedData {
  name: string;
  version: string;
  /** The registered upstream server and its own name for the tool. */
  server: string;
  upstreamTool: string;
  fields: DriftField[];
  /** The quarantine reason the registry records. */
  reason: string;
}

export type ToolVersionDriftDetected = { type: 'ToolVersionDriftDetected'; version: 1; data: ToolVersionDriftDetectedData };
