import { rcompare } from 'semver';
import { isStableVersion, isVisible, toMcpTool, type McpTool, type Principal, type VersionStatus } from '@estate/contracts';
import type { ServerRegisteredData } from '@estate/events';
import type { ToolState, ToolVersionState } from './tool.decider';

/**
 * Who may read the registry's governance records (scopes, tenants, classification, owner,
 * upstream binding, server registrations): the people who write them. Everyone else is an agent
 * and learns no more from the registry than from the MCP edge.
 */
const GOVERNANCE_SCOPES: readonly string[] = ['estate:admin', 'estate:publish'];

export function readsGovernance(viewer: Principal): boolean {
  return viewer.scopes.some((scope) => GOVERNANCE_SCOPES.includes(scope));
}

/** One row of `GET /v1/tools`: the same shape for everyone, filtered for agents. */
export interface ToolSummary {
  name: string;
  /** The newest stable version the viewer may read; the newest of any kind only when it may read no stable one. */
  latest?: string;
  /** Each version's status, or `quarantined` for a quarantined one (only governance readers see those). */
  versions: Record<string, VersionStatus | 'quarantined'>;
}

/** What an agent may read of a version: what the edge would show it, its version and its status. */
export interface AgentVersionView {
  version: string;
  status: VersionStatus;
  sunsetAt?: string;
  tool: McpTool;
}

export interface ToolView {
  name: string;
  versions: Record<string, ToolVersionState | AgentVersionView>;
}

/**
 * The versions an agent could discover at the edge: visible to it (scopes, tenant, clearance),
 * neither quarantined nor retired. A deprecated version stays listed: it is still callable by
 * exact pin, and its sunset is what the agent needs to know.
 */
function discoverable(viewer: Principal, state: ToolState): Array<[string, ToolVersionState]> {
  return [...state.versions]
    .filter(([, v]) => v.status !== 'retired' && !v.quarantined && isVisible(viewer, v.spec))
    .sort(([a], [b]) => rcompare(a, b));
}

function readable(viewer: Principal, state: ToolState): Array<[string, ToolVersionState]> {
  return readsGovernance(viewer) ? [...state.versions].sort(([a], [b]) => rcompare(a, b)) : discoverable(viewer, state);
}

function agentView(version: string, state: ToolVersionState): AgentVersionView {
  return { version, status: state.status, ...(state.sunsetAt ? { sunsetAt: state.sunsetAt } : {}), tool: toMcpTool(state.spec) };
}

/** undefined when the viewer may see no version: the caller answers exactly as for a missing tool. */
export function toolSummaryFor(viewer: Principal, name: string, state: ToolState): ToolSummary | undefined {
  const versions = readable(viewer, state);
  if (versions.length === 0) return undefined;
  // A quarantined version is hidden everywhere whatever its status: a governance reader sees it said so.
  const statuses = Object.fromEntries([...versions].reverse().map(([v, st]) => [v, st.quarantined ? 'quarantined' as const : st.status]));
  const latest = versions.find(([v]) => isStableVersion(v)) ?? versions[0];
  return { name, latest: latest[0], versions: statuses };
}

export function toolViewFor(viewer: Principal, name: string, state: ToolState): ToolView | undefined {
  if (readsGovernance(viewer)) return state.versions.size === 0 ? undefined : { name, versions: Object.fromEntries(state.versions) };
  const versions = discoverable(viewer, state);
  if (versions.length === 0) return undefined;
  return { name, versions: Object.fromEntries([...versions].reverse().map(([v, st]) => [v, agentView(v, st)])) };
}

export function versionViewFor(viewer: Principal, state: ToolState, version: string): ToolVersionState | AgentVersionView | undefined {
  const found = readable(viewer, state).find(([v]) => v === version);
  if (!found) return undefined;
  return readsGovernance(viewer) ? found[1] : agentView(found[0], found[1]);
}

/** A server registration names the upstream URL or command: governance only. */
export function serverViewFor(viewer: Principal, server: ServerRegisteredData | undefined): ServerRegisteredData | undefined {
  return server && readsGovernance(viewer) ? server : undefined;
}
