import { isVisible, type Principal, type VisibilityFacts } from '@estate/contracts';
import { isJsonObject } from '@estate/protocol';

/** Reading the whole trail is an audit or admin privilege; the same scopes see the whole feed. */
const SEES_ALL = ['estate:admin', 'estate:audit'];

/**
 * Who reads governance records (scopes, tenants, classification, owner, upstream, actors, publish
 * diffs) in the events it sees: the people who write them, as the registry's `readsGovernance`
 * (apps/registry/src/domain/registry-read.policy.ts) has it. Audit readers see everything anyway.
 */
const READS_GOVERNANCE = ['estate:admin', 'estate:publish'];

/**
 * Who reads the feed: someone who sees every event in full, or a principal who sees only the events
 * of its tools, in full (`governance`: a publisher) or as the registry shows an agent.
 */
export type FeedViewer = { kind: 'all' } | { kind: 'principal'; principal: Principal; governance: boolean };

export function feedViewerOf(principal: Principal): FeedViewer {
  const holds = (scopes: readonly string[]) => principal.scopes.some((scope) => scopes.includes(scope));
  return holds(SEES_ALL) ? { kind: 'all' } : { kind: 'principal', principal, governance: holds(READS_GOVERNANCE) };
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
