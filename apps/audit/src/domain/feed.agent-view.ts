import { agentEventData, AGENT_READABLE_TYPES, estateEventType, type CloudEvent, type RegistryEventType } from '@estate/events';

/**
 * A feed event as a reader without governance scopes gets it: no actor, and the data cut to what
 * the registry shows such a reader of the same change (`agentEventData`, the rule both answer
 * agents by). That data no longer satisfies the event's JSON Schema, so `dataschema` is left out
 * too, and so is the position in the tool's stream: its gaps would count the changes hidden from the reader.
 */
export type AgentFeedEvent = Omit<CloudEvent, 'estateactor' | 'dataschema' | 'estateposition'>;

/**
 * The event as a reader without governance scopes gets it, or undefined when such a reader gets
 * none of it (a server registration, or a type the rule does not know, such as audit's own
 * follow-ups).
 */
export function agentFeedEvent(event: CloudEvent): AgentFeedEvent | undefined {
  const type = estateEventType(event.type, AGENT_READABLE_TYPES) as RegistryEventType | undefined;
  if (type === undefined) return undefined;
  const data = agentEventData(type, event.data);
  if (data === undefined) return undefined;
  const { estateactor: _actor, dataschema: _schema, estateposition: _position, ...kept } = event;
  return { ...kept, data };
}
