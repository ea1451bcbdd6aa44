import { isVisible, type Principal, type ToolSpec } from '@estate/contracts';
import { agentEventData, upcast, type EventEnvelope, type RegistryEvent } from '@estate/events';
import { readsGovernance } from './registry-read.policy';

export type ToolChangeKind = 'published' | 'deprecated' | 'retired' | 'quarantined' | 'sunset-reached';

/** One change of a tool, as `GET /v1/tools/{name}/history` lists it. */
export interface ToolChange {
  /** The change's place in the tool's stream (0 for its first publish). */
  position: number;
  change: ToolChangeKind;
  version: string;
  at: string;
  /** Who made it; governance readers only (an agent learns no more here than at the edge). */
  actor?: string;
  summary: string;
  details: Record<string, unknown>;
}

/**
 * A tool's stream as a list of changes, for this viewer. Publishers and admins read every change
 * with its actor; an agent reads only the changes of versions whose contract it may see, without
 * actors, publish diffs or quarantine reasons, and only while it could discover the tool at all
 * (a version it may see, neither retired nor quarantined), as GET /v1/tools/{name} answers it.
 * undefined: nothing to show, which the route answers exactly as for a tool that does not exist.
 */
export function toolHistoryFor(viewer: Principal, stream: readonly EventEnvelope[]): ToolChange[] | undefined {
  const governance = readsGovernance(viewer);
  const specs = new Map<string, ToolSpec>();
  const gone = new Set<string>();
  const changes: ToolChange[] = [];
  for (const envelope of stream) {
    const event = asRegistryEvent(envelope);
    if (event.type === 'ServerRegistered') continue;
    if (event.type === 'ToolVersionPublished') specs.set(event.data.spec.version, event.data.spec);
    const version = event.type === 'ToolVersionPublished' ? event.data.spec.version : event.data.version;
    if (event.type === 'ToolVersionRetired' || event.type === 'ToolQuarantined') gone.add(version);
    const spec = specs.get(version);
    if (!governance && (spec === undefined || !isVisible(viewer, spec))) continue;
    // A deprecation names its replacement to an agent only when the agent may see that version too.
    const told = governance ? event : withoutHiddenReplacement(event, (v) => specs.get(v) !== undefined && isVisible(viewer, specs.get(v) as ToolSpec));
    const { change, summary, details } = describe(told, governance);
    // An agent reads of each change what audit's change feed shows it (agentEventData), less what the row already says.
    const shown = governance ? details : withoutIdentity(agentEventData(told.type, told.data));
    // An agent's positions count only what it sees: the stream's own would show gaps where hidden versions are.
    changes.push({ position: governance ? envelope.position : changes.length, change, version, at: envelope.occurredAt, ...(governance ? { actor: envelope.actor } : {}), summary, details: shown });
  }
  const discoverable = [...specs].some(([version, spec]) => !gone.has(version) && isVisible(viewer, spec));
  return changes.length === 0 || (!governance && !discoverable) ? undefined : changes;
}

function asRegistryEvent(envelope: EventEnvelope): RegistryEvent {
  const current = upcast(envelope);
  return { type: current.type, version: current.version, data: current.data } as RegistryEvent;
}

function withoutHiddenReplacement<E extends Exclude<RegistryEvent, { type: 'ServerRegistered' }>>(event: E, maySee: (version: string) => boolean): E {
  if (event.type !== 'ToolVersionDeprecated' || event.data.replacement === undefined || maySee(event.data.replacement)) return event;
  const { replacement: _hidden, ...data } = event.data;
  return { ...event, data };
}

function withoutIdentity(data: Record<string, unknown> | undefined): Record<string, unknown> {
  const { name: _name, version: _version, spec: _spec, ...rest } = data ?? {};
  return rest;
}

/** A change as a governance reader reads it; an agent's summary leaves out what its details do. */
function describe(event: Exclude<RegistryEvent, { type: 'ServerRegistered' }>, governance: boolean): Pick<ToolChange, 'change' | 'summary' | 'details'> {
  switch (event.type) {
    case 'ToolVersionPublished': {
      const { spec, bump, changes } = event.data;
      const breaking = changes.filter((c) => c.breaking).length;
      // Counted for governance readers only: a count is a trace of a diff the agent does not get.
      const counted = changes.length === 0 || !governance ? '' : `, ${changes.length} change${changes.length === 1 ? '' : 's'} (${breaking} breaking)`;
      return { change: 'published', summary: `published ${spec.version}: ${bump === 'initial' ? 'first version' : `${bump} bump`}${counted}`, details: { bump, changes } };
    }
    case 'ToolVersionDeprecated': {
      const { version, reason, sunsetAt, replacement } = event.data;
      const plan = [sunsetAt ? `sunset ${sunsetAt}` : '', replacement ? `use ${replacement}` : ''].filter(Boolean).join(', ');
      return { change: 'deprecated', summary: `deprecated ${version}: ${reason}${plan ? ` (${plan})` : ''}`, details: { reason, ...(sunsetAt ? { sunsetAt } : {}), ...(replacement ? { replacement } : {}) } };
    }
    case 'ToolVersionRetired':
      return { change: 'retired', summary: `retired ${event.data.version}: ${event.data.reason}`, details: { reason: event.data.reason } };
    case 'ToolQuarantined':
      return { change: 'quarantined', summary: `quarantined ${event.data.version}${governance ? `: ${event.data.reason}` : ''}`, details: { reason: event.data.reason } };
    case 'ToolVersionSunsetReached':
      return { change: 'sunset-reached', summary: `${event.data.version} reached its sunset date ${event.data.sunsetAt}`, details: { sunsetAt: event.data.sunsetAt } };
  }
}
