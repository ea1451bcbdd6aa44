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

/**
 * One tool with every version, as discovery projects it and the edge serves it. On `estate.catalog`
 * it travels as a head (key: the tool name) and one record per version (key: `name@version`), so a
 * change sends what changed, not the tool's history. An older discovery wrote the whole entry under
 * the tool name; edges still read that form.
 */
export interface CatalogEntry {
  name: string;
  upstream: CatalogUpstream;
  versions: CatalogVersion[];
  /** Registry stream position this state reflects; an edge ignores an older entry than it holds. */
  position: number;
}

/**
 * A tool's record on `estate.catalog` (key: the tool name): the entry without its versions, which
 * are records of their own. A null value withdraws the tool.
 */
export interface CatalogHead {
  kind: 'head';
  name: string;
  upstream: CatalogUpstream;
  /** The entry's versions in its order, each the record keyed catalogVersionKey(name, version). */
  versions: string[];
  /** Registry stream position this state reflects; an edge ignores an older head than it holds. */
  position: number;
}

/** One version of a tool on `estate.catalog` (key: catalogVersionKey(tool, version.version)). */
export interface CatalogVersionRecord {
  kind: 'version';
  tool: string;
  /** The position of the tool when this version last changed; an edge ignores an older record for the key. */
  position: number;
  version: CatalogVersion;
}

/** A version record's key: tool names never hold "@" (tool-spec.lint.ts), so the key names one version. */
export function catalogVersionKey(tool: string, version: string): string {
  return `${tool}@${version}`;
}

/** The tool and version a version record's key names; undefined for a head's key (a tool name). */
export function catalogVersionKeyParts(key: string): { tool: string; version: string } | undefined {
  const at = key.indexOf('@');
  return at < 0 ? undefined : { tool: key.slice(0, at), version: key.slice(at + 1) };
}
