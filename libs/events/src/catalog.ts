import type { ToolSpec, VersionStatus } from '@estate/contracts';
import type { UpstreamTransport } from './registry.events';

/** One version of a tool as the catalog carries it to every edge. */
export interface CatalogVersion {
  version: string;
  status: VersionStatus;
  quarantined: boolean;
  spec: ToolSpec;
  publishedAt: string;
  /** `deprecatedAt`: when the deprecation was recorded (the edge tells callers "since"). */
  deprecation?: { reason: string; sunsetAt?: string; replacement?: string; deprecatedAt?: string };
}

/** How the edge reaches the server that serves a tool. */
export interface CatalogUpstream {
  server: string;
  transport: UpstreamTransport;
  url?: string;
  command?: string;
  args?: string[];
  allowSampling: boolean;
  allowElicitation: boolean;
  sessionAffinity?: boolean;
}

/** The value on `estate.catalog` for one tool name (the key). A null value removes the tool. */
export interface CatalogEntry {
  name: string;
  upstream: CatalogUpstream;
  versions: CatalogVersion[];
  /** Registry stream position this state reflects; an edge ignores an older entry than it holds. */
  position: number;
}
