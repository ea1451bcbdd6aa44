import type { RegistryEventType } from './registry.events';

type Data = Record<string, unknown>;

/**
 * The spec fields an agent reads: what the edge shows of a tool (`toMcpTool`; the side effect is
 * what its hints encode) and the version. Scopes, tenants, classification, owner and upstream stay
 * behind. A list of what to keep, so a field added to the spec later stays hidden until someone decides.
 */
export const AGENT_SPEC_FIELDS: readonly string[] = ['name', 'version', 'title', 'description', 'inputSchema', 'outputSchema', 'sideEffect'];

/**
 * Per registry event, the data fields a reader without governance scopes may read; undefined: none
 * of the event. A server registration names an upstream URL or command; a publish keeps its spec
 * (AGENT_SPEC_FIELDS) and bump but not its diff; a quarantine keeps no reason.
 */
const AGENT_FIELDS = {
  ServerRegistered: undefined,
  ToolVersionPublished: ['spec', 'bump'],
  ToolVersionDeprecated: ['name', 'version', 'reason', 'sunsetAt', 'replacement'],
  ToolVersionRetired: ['name', 'version', 'reason'],
  ToolQuarantined: ['name', 'version'],
  ToolVersionSunsetReached: ['name', 'version', 'sunsetAt'],
} satisfies Record<RegistryEventType, readonly string[] | undefined>;

export const AGENT_READABLE_TYPES = Object.keys(AGENT_FIELDS) as RegistryEventType[];

function pick(value: unknown, keys: readonly string[]): Data {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
  const object = value as Data;
  return Object.fromEntries(keys.filter((key) => object[key] !== undefined).map((key) => [key, object[key]]));
}

/**
 * What an agent may read of a registry event's data, or undefined when it may read none of it:
 * the rule the registry's history and audit's change feed both answer agents by.
 */
export function agentEventData(type: RegistryEventType, data: unknown): Data | undefined {
  const fields: readonly string[] | undefined = AGENT_FIELDS[type];
  if (fields === undefined) return undefined;
  const kept = pick(data, fields);
  if (kept.spec !== undefined) kept.spec = pick(kept.spec, AGENT_SPEC_FIELDS);
  return kept;
}
