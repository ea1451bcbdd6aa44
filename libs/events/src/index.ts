export { ENVELOPE_SCHEMA } from './envelope';
export type { EventEnvelope } from './envelope';
export { TOPICS, topicName } from './topics';
export type { TopicKey } from './topics';
export { CURRENT_REGISTRY_EVENT_VERSIONS } from './registry.events';
export type {
  UpstreamTransport,
  ServerRegisteredData,
  ServerRegisteredDataV1,
  ToolVersionPublishedData,
  ToolVersionDeprecatedData,
  ToolVersionRetiredData,
  ToolQuarantinedData,
  ToolVersionSunsetReachedData,
  ToolVersionSunsetReached,
  ServerRegistered,
  ToolVersionPublished,
  ToolVersionDeprecated,
  ToolVersionRetired,
  ToolQuarantined,
  RegistryEvent,
  RegistryEventType,
} from './registry.events';
export type {
  CallOutcome,
  RefusalReason,
  ToolCallCompletedData,
  ToolCallRefusedData,
  ToolNameAsSent,
  ToolCallCompleted,
  ToolCallRefused,
  UpstreamRequestMethod,
  UpstreamRequestRefusalReason,
  UpstreamRequestRelayedData,
  UpstreamRequestRefusedData,
  UpstreamRequestRelayed,
  UpstreamRequestRefused,
  CallEvent,
  CallEventType,
} from './call.events';
export { CURRENT_CALL_EVENT_VERSIONS } from './call.events';
export type { DriftField, ToolVersionDriftDetectedData, ToolVersionDriftDetected } from './drift.events';
export { asyncApiDocument, FEED_ONLY_EVENT_TYPES } from './asyncapi.document';
export type { AsyncApiOptions } from './asyncapi.document';
export type { DeprecationCaller, ToolVersionDeprecationCallersData, ToolVersionDeprecationCallers } from './audit.events';
export type { CatalogEntry, CatalogVersion, CatalogUpstream, CatalogHead, CatalogVersionRecord } from './catalog';
export { catalogVersionKey, catalogVersionKeyParts } from './catalog';
export { EVENT_DATA_SCHEMAS, TOOL_SPEC_SCHEMA, eventSchemaKey } from './event.schemas';
export type { EventSchemaKey } from './event.schemas';
export { upcast } from './upcasters';
export { callEnvelopeText } from './call.envelope';
export { checkEnvelope, type EnvelopeCheck } from './envelope.check';
export { isPlainEnvelope, isPlainUtcDateTime } from './envelope.fast-check';
export { toCloudEvent, cloudEventType, estateEventType, eventSchemaUrl, cloudEventHeaders, CLOUD_EVENT_TYPE_PREFIX } from './cloud-event';
export type { CloudEvent, CloudEventOptions } from './cloud-event';
export { agentEventData, AGENT_READABLE_TYPES, AGENT_SPEC_FIELDS } from './agent-view';
export { parseFeedFilter, feedFilterAdmits, isToolPattern, TOOL_PATTERN_RULE } from './feed.filter';
export type { FeedFilter, FeedFilterInput, FeedFilterResult } from './feed.filter';
