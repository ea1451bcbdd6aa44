import type { ToolSpec } from '@estate/contracts';

/** How the edge reaches an upstream MCP server. */
export type UpstreamTransport = 'streamable-http' | 'stdio';

export interface ServerRegisteredData {
  name: string;
  /** Tools served by this server are named `${namespace}.x`; an empty namespace keeps bare names (admin only). */
  namespace: string;
  transport: UpstreamTransport;
  url?: string;
  command?: string;
  args?: string[];
  owner: string;
  /** Whether the edge relays this upstream's sampling / elicitation requests to clients. Off unless registered. */
  allowSampling: boolean;
  allowElicitation: boolean;
  /** The upstream keeps per-client state: the edge opens one upstream session per downstream session. */
  sessionAffinity?: boolean;
}

/** Version 1 of ServerRegistered knew only HTTP upstreams and had no namespace field. */
export interface ServerRegisteredDataV1 {
  name: string;
  url: string;
  owner: string;
}

export interface ToolVersionPublishedData {
  spec: ToolSpec;
  bump: 'major' | 'minor' | 'patch' | 'none' | 'initial';
  changes: Array<{ path: string; kind: string; breaking: boolean; message: string }>;
}

export interface ToolVersionDeprecatedData {
  name: string;
  version: string;
  reason: string;
  sunsetAt?: string;
  replacement?: string;
}

export interface ToolVersionRetiredData {
  name: string;
  version: string;
  reason: string;
}

/** A deprecated version's announced sunset date passed; the registry retires it in the same append. */
export interface ToolVersionSunsetReachedData {
  name: string;
  version: string;
  sunsetAt: string;
}

export interface ToolQuarantinedData {
  name: string;
  version: string;
  reason: string;
}

export type ServerRegistered = { type: 'ServerRegistered'; version: 2; data: ServerRegisteredData };
export type ToolVersionPublished = { type: 'ToolVersionPublished'; version: 1; data: ToolVersionPublishedData };
export type ToolVersionDeprecated = { type: 'ToolVersionDeprecated'; version: 1; data: ToolVersionDeprecatedData };
export type ToolVersionRetired = { type: 'ToolVersionRetired'; version: 1; data: ToolVersionRetiredData };
export type ToolQuarantined = { type: 'ToolQuarantined'; version: 1; data: ToolQuarantinedData };
export type ToolVersionSunsetReached = { type: 'ToolVersionSunsetReached'; version: 1; data: ToolVersionSunsetReachedData };

/** Every fact the registry records. Discriminated by `type`. */
export type RegistryEvent =
  | ServerRegistered
  | ToolVersionPublished
  | ToolVersionDeprecated
  | ToolVersionRetired
  | ToolQuarantined
  | ToolVersionSunsetReached;

export type RegistryEventType = RegistryEvent['type'];

export const CURRENT_REGISTRY_EVENT_VERSIONS: { readonly [K in RegistryEventType]: number } = {
  ServerRegistered: 2,
  ToolVersionPublished: 1,
  ToolVersionDeprecated: 1,
  ToolVersionRetired: 1,
  ToolQuarantined: 1,
  ToolVersionSunsetReached: 1,
};
