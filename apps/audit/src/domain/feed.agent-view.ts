import { estateEventType, type CloudEvent, type RegistryEventType } from '@estate/events';
import { isJsonObject } from '@estate/protocol';

/**
 * A feed event as a reader without governance scopes gets it: no actor, and the data cut to what
 * the registry shows such a reader of the same change. That data no longer satisfies the event's
 * JSON Schema, so `dataschema` is left out too.
 */
export type AgentFeedEvent = Omit<CloudEvent, 'estateactor' | 'dataschema'>;

type Data = Record<string, unknown>;

function pick(value: unknown, keys: readonly string[]): Data {
  if (!isJsonObject(value)) return {};
  return Object.fromEntries(keys.filter((key) => value[key] !== undefined).map((key) => [key, value[key]]));
}

/**
 * The spec fields an agent reads: what `toMcpTool` shows (the side effect is what its hints
 * encode) and the version. Scopes, tenants, classification, owner and upstream stay behind. A list
 * of what to keep, so a field added to the spec later stays hidden until someone decides.
 */
const AGENT_SPEC_FIELDS = ['name', 'version', 'title', 'description', 'inputSchema', 'outputSchema', 'sideEffect'];

/**
 * Per registry event, the data an agent may read, or undefined when it may read none of it. This is
 * the feed's copy of the registry's rule for non-publishers: `agentView` in
 * apps/registry/src/domain/registry-read.policy.ts (the spec as MCP clients see it; no server
 * registration) and `describe` in tool-history.policy.ts (a publish keeps its bump but not its
 * diff; a quarantine keeps no reason). Change them together.
 */
const AGENT_DATA = {
  ServerRegistered: () => undefined,
  ToolVersionPublished: (data) => ({ spec: pick(data.spec, AGENT_SPEC_FIELDS), ...pick(data, ['bump']) }),
  ToolVersionDeprecated: (data) => pick(data, ['name', 'version', 'reason', 'sunsetAt', 'replacement']),
  ToolVersionRetired: (data) => pick(data, ['name', 'version', 'reason']),
  ToolQuarantined: (data) => pick(data, ['name', 'version']),
  ToolVersionSunsetReached: (data) => pick(data, ['name', 'version', 'sunsetAt']),
} satisfies Record<RegistryEventType, (data: Data) => Data | undefined>;

const AGENT_TYPES = Object.keys(AGENT_DATA) as RegistryEventType[];

/**
 * The event as a reader without governance scopes gets it, or undefined when such a reader gets
 * none of it (a server registration, or a type this rule does not know, such as audit's own
 * follow-ups).
 */
export function agentFeedEvent(event: CloudEvent): AgentFeedEvent | undefined {
  const type = estateEventType(event.type, AGENT_TYPES) as RegistryEventType | undefined;
  if (type === undefined) return undefined;
  const data = AGENT_DATA[type](isJsonObject(event.data) ? event.data : {});
  if (data === undefined) return undefined;
  const { estateactor: _actor, dataschema: _schema, ...kept } = event;
  return { ...kept, data };
}
