import { isVisible, type Principal, type VisibilityFacts } from '@estate/contracts';
import { isJsonObject } from '@estate/protocol';

/** Reading the whole trail is an audit or admin privilege; the same scopes see the whole feed. */
const SEES_ALL = ['estate:admin', 'estate:audit'];

/** Who reads the feed: someone who sees every event, or an agent who sees only its tools. */
export type FeedViewer = { kind: 'all' } | { kind: 'agent'; principal: Principal };

export function feedViewerOf(principal: Principal): FeedViewer {
  return principal.scopes.some((scope) => SEES_ALL.includes(scope)) ? { kind: 'all' } : { kind: 'agent', principal };
}

/**
 * Whether the viewer may see an event about a tool version whose published spec is `spec`
 * (undefined: no tool version, e.g. a server registration, or one never published). The rule is
 * discovery's own (`isVisible`, which `resolveForPrincipal` applies per version), applied to the
 * version the event is about rather than to the catalog's current answer: that answer drops
 * retired and quarantined versions, which would hide a retirement from the agents that used the
 * version, and would let a version the agent may not see ride on an older one it may.
 */
export function feedViewerMaySee(viewer: FeedViewer, spec: VisibilityFacts | undefined): boolean {
  if (viewer.kind === 'all') return true;
  return spec !== undefined && isVisible(viewer.principal, spec);
}

/**
 * The visibility facts of a published spec, or undefined when the recorded spec lacks them: the
 * trail keeps whatever was sent, and a malformed spec must hide the tool, not throw or show it.
 */
export function visibilityFactsOf(spec: unknown): VisibilityFacts | undefined {
  if (!isJsonObject(spec)) return undefined;
  const { requiredScopes, tenants, dataClassification } = spec;
  const strings = (value: unknown): value is string[] => Array.isArray(value) && value.every((item) => typeof item === 'string');
  if (!strings(requiredScopes) || !strings(tenants) || typeof dataClassification !== 'string') return undefined;
  return { requiredScopes, tenants, dataClassification: dataClassification as VisibilityFacts['dataClassification'] };
}
