import type { EventEnvelope } from './envelope';

/**
 * The public shape of an estate event: CloudEvents 1.0. Inside the estate events travel in
 * `EventEnvelope`; whatever leaves it (the SSE feed, webhooks, the `ce_*` headers on Kafka) speaks
 * the standard, so a subscriber can use any CloudEvents SDK instead of learning our envelope.
 */
export interface CloudEvent<TData = unknown> {
  specversion: '1.0';
  id: string;
  source: string;
  type: string;
  subject?: string;
  time: string;
  datacontenttype: 'application/json';
  dataschema: string;
  /** Extension: the version of the event's own schema (`dataschema` names it too). */
  estateschemaversion: number;
  /** Extension: the estate stream the event belongs to and its place in it. */
  estatestream: string;
  estateposition: number;
  /** Extension: the correlation id of the request that caused the event. */
  estatecorrelation: string;
  /** Extension: who caused it (the registry's actor), what a change feed reader asks first. */
  estateactor: string;
  data: TData;
}

export const CLOUD_EVENT_TYPE_PREFIX = 'io.estate.';

/** `ToolVersionDeprecated` → `io.estate.tool.version.deprecated`. */
export function cloudEventType(type: string): string {
  return CLOUD_EVENT_TYPE_PREFIX + type.replace(/([a-z0-9])([A-Z])/g, '$1.$2').toLowerCase();
}

/** The estate type a CloudEvents type names, or undefined when it is not one of ours. */
export function estateEventType(cloudType: string, known: readonly string[]): string | undefined {
  return known.find((type) => cloudEventType(type) === cloudType);
}

/**
 * Where an event's JSON Schema is published: `<base>/<Type>/<version>.json`. The base is the public
 * URL of the service that serves the schemas (`/v1/schemas/events/...`).
 */
export function eventSchemaUrl(base: string, type: string, version: number): string {
  return `${base.replace(/\/+$/, '')}/${type}/${version}.json`;
}

export interface CloudEventOptions {
  /** The CloudEvents `source`: a URI naming the estate (e.g. `urn:estate:<estate id>` or its registry URL). */
  source: string;
  /** The base URL `dataschema` points under. */
  schemaBase: string;
}

/** The tool an event is about: registry tool events carry `name`; a server event has no tool. */
function subjectOf(envelope: EventEnvelope): string | undefined {
  const data = envelope.data as { name?: unknown; spec?: { name?: unknown }; tool?: unknown } | null;
  if (envelope.type === 'ServerRegistered') return undefined;
  const name = data?.spec?.name ?? data?.name ?? data?.tool;
  return typeof name === 'string' ? name : undefined;
}

/** The structured-mode CloudEvent for an envelope. Pure: same envelope, same event. */
export function toCloudEvent<TData>(envelope: EventEnvelope<string, TData>, options: CloudEventOptions): CloudEvent<TData> {
  const subject = subjectOf(envelope);
  return {
    specversion: '1.0',
    id: envelope.id,
    source: options.source,
    type: cloudEventType(envelope.type),
    ...(subject === undefined ? {} : { subject }),
    time: envelope.occurredAt,
    datacontenttype: 'application/json',
    dataschema: eventSchemaUrl(options.schemaBase, envelope.type, envelope.version),
    estateschemaversion: envelope.version,
    estatestream: envelope.stream,
    estateposition: envelope.position,
    estatecorrelation: envelope.correlationId,
    estateactor: envelope.actor,
    data: envelope.data,
  };
}

/**
 * Binary mode for Kafka: every attribute except `data` as a `ce_` header, the data as the value.
 * The CloudEvents Kafka binding names the content type header `content-type`.
 */
export function cloudEventHeaders(event: CloudEvent): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': event.datacontenttype };
  for (const [key, value] of Object.entries(event)) {
    if (key === 'data' || key === 'datacontenttype' || value === undefined) continue;
    headers[`ce_${key}`] = String(value);
  }
  return headers;
}
