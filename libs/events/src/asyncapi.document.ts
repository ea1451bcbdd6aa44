import { CURRENT_CALL_EVENT_VERSIONS } from './call.events';
import { cloudEventType, eventSchemaUrl } from './cloud-event';
import { ENVELOPE_SCHEMA } from './envelope';
import { EVENT_DATA_SCHEMAS, TOOL_SPEC_SCHEMA } from './event.schemas';
import { CURRENT_REGISTRY_EVENT_VERSIONS } from './registry.events';
import { topicName } from './topics';

/** Where the described estate runs: the document names real addresses so a code generator can use it as is. */
export interface AsyncApiOptions {
  /** The estate's version string (package version). */
  version: string;
  topicPrefix: string;
  /** `host:port` of a Kafka broker. */
  kafkaHost: string;
  /** Audit's public base URL (serves the SSE feed). */
  auditUrl: string;
  /** The CloudEvents `source` and the base of `dataschema`. */
  source: string;
  schemaBase: string;
}

type Json = Record<string, unknown>;
const ref = (path: string): Json => ({ $ref: path });

/** Every (type, version) with a schema, split by the log it travels on. */
function eventKeys(): { registry: Array<[string, number]>; feed: Array<[string, number]>; calls: Array<[string, number]> } {
  const all = Object.keys(EVENT_DATA_SCHEMAS).map((key) => key.split('@')).map(([type, v]) => [type, Number(v)] as [string, number]);
  const registry = all.filter(([type]) => type in CURRENT_REGISTRY_EVENT_VERSIONS);
  return {
    registry,
    // The feed also carries what audit states after a registry fact (who called a deprecated version).
    feed: [...registry, ...all.filter(([type]) => FEED_ONLY_EVENT_TYPES.includes(type))],
    calls: all.filter(([type]) => type in CURRENT_CALL_EVENT_VERSIONS),
  };
}

/** Events the SSE feed carries that are not on the registry log: audit records them itself. */
export const FEED_ONLY_EVENT_TYPES: readonly string[] = ['ToolVersionDeprecationCallers'];

const dataSchema = (type: string, version: number): Json => EVENT_DATA_SCHEMAS[`${type}@${version}` as keyof typeof EVENT_DATA_SCHEMAS] as unknown as Json;

/** The `ce_*` headers every Kafka message carries (binary mode), next to the estate's own. */
function kafkaHeaders(type: string, version: number, options: AsyncApiOptions): Json {
  const constant = (value: string) => ({ type: 'string', const: value });
  return {
    type: 'object',
    required: ['ce_specversion', 'ce_id', 'ce_source', 'ce_type', 'ce_time', 'ce_dataschema', 'content-type'],
    properties: {
      ce_specversion: constant('1.0'),
      ce_id: { type: 'string' },
      ce_source: { type: 'string', examples: [options.source] },
      ce_type: constant(cloudEventType(type)),
      ce_subject: { type: 'string', description: 'the tool name, when the event is about a tool' },
      ce_time: { type: 'string', format: 'date-time' },
      ce_dataschema: { type: 'string', examples: [eventSchemaUrl(options.schemaBase, type, version)] },
      ce_estateschemaversion: constant(String(version)),
      ce_estatestream: { type: 'string' },
      ce_estateposition: { type: 'string' },
      ce_estatecorrelation: { type: 'string' },
      ce_estateactor: { type: 'string' },
      'content-type': constant('application/json'),
      'estate-type': constant(type),
      'estate-version': constant(String(version)),
      'estate-id': { type: 'string' },
      'x-correlation-id': { type: 'string' },
    },
  };
}

/** The Kafka value: the estate envelope, whose `data` is the event's payload. */
function envelopeSchema(type: string, version: number): Json {
  const properties = { ...ENVELOPE_SCHEMA.properties, type: { type: 'string', const: type }, version: { type: 'integer', const: version }, data: dataSchema(type, version) };
  return { ...ENVELOPE_SCHEMA, properties };
}

/** The structured CloudEvent the SSE feed (and webhooks) send. */
function cloudEventSchema(type: string, version: number): Json {
  const str = { type: 'string' };
  return {
    type: 'object',
    required: ['specversion', 'id', 'source', 'type', 'time', 'datacontenttype', 'dataschema', 'data'],
    properties: {
      specversion: { type: 'string', const: '1.0' }, id: str, source: str, type: { type: 'string', const: cloudEventType(type) }, subject: str,
      time: { type: 'string', format: 'date-time' }, datacontenttype: { type: 'string', const: 'application/json' }, dataschema: { type: 'string', format: 'uri' },
      estateschemaversion: { type: 'integer', const: version }, estatestream: str, estateposition: { type: 'integer' }, estatecorrelation: str, estateactor: str,
      data: dataSchema(type, version),
    },
  };
}

const UPSTREAM_SCHEMA: Json = { type: 'object', required: ['server', 'transport'], properties: { server: { type: 'string' }, transport: { enum: ['streamable-http', 'stdio'] } } };

const CATALOG_VERSION_SCHEMA: Json = {
  type: 'object',
  required: ['version', 'status', 'quarantined', 'spec', 'publishedAt'],
  properties: { version: { type: 'string' }, status: { enum: ['active', 'deprecated', 'retired'] }, quarantined: { type: 'boolean' }, spec: TOOL_SPEC_SCHEMA, publishedAt: { type: 'string' } },
};

const CATALOG_HEAD_SCHEMA: Json = {
  type: ['object', 'null'],
  description: 'A tool without its versions\' contents (key: the tool name); null (a tombstone) when the tool is withdrawn. It is whole once every version it lists has its record.',
  required: ['kind', 'name', 'upstream', 'versions', 'position'],
  properties: {
    kind: { const: 'head' },
    name: { type: 'string' },
    upstream: UPSTREAM_SCHEMA,
    versions: { type: 'array', items: { type: 'string' }, description: 'Every version of the tool, each the record keyed "name@version".' },
    position: { type: 'integer' },
  },
};

const CATALOG_VERSION_RECORD_SCHEMA: Json = {
  type: ['object', 'null'],
  description: 'One version of a tool (key: "name@version"); the newest position per key wins.',
  required: ['kind', 'tool', 'position', 'version'],
  properties: { kind: { const: 'version' }, tool: { type: 'string' }, position: { type: 'integer' }, version: CATALOG_VERSION_SCHEMA },
};

const CATALOG_ENTRY_SCHEMA: Json = {
  type: ['object', 'null'],
  description: 'The whole state of one tool under its name, as discovery wrote it before heads and version records; edges still read it.',
  required: ['name', 'upstream', 'versions', 'position'],
  properties: { name: { type: 'string' }, upstream: UPSTREAM_SCHEMA, versions: { type: 'array', items: CATALOG_VERSION_SCHEMA }, position: { type: 'integer' } },
};

/**
 * The AsyncAPI 3.0 description of every public topic and of the SSE feed, generated from the event
 * types and schemas in this library so it cannot drift from what is sent. Dead letters are left
 * out: they are an operator's tool, not a contract for subscribers.
 */
export function asyncApiDocument(options: AsyncApiOptions): Json {
  const keys = eventKeys();
  const messages: Json = {};
  const kafkaMessage = (type: string, version: number): string => {
    const name = `${type}V${version}`;
    messages[name] = {
      name, title: `${type} v${version}`, contentType: 'application/json',
      summary: `${cloudEventType(type)} (CloudEvents binary mode: ce_ headers, the estate envelope as the value)`,
      headers: kafkaHeaders(type, version, options), payload: envelopeSchema(type, version),
      bindings: { kafka: { key: { type: 'string' }, bindingVersion: '0.5.0' } },
    };
    return name;
  };
  const sseMessage = (type: string, version: number): string => {
    const name = `${type}V${version}CloudEvent`;
    messages[name] = { name, title: `${cloudEventType(type)} (structured CloudEvent)`, contentType: 'application/cloudevents+json', payload: cloudEventSchema(type, version) };
    return name;
  };
  const channel = (address: string, server: string, names: string[], description: string): Json => ({
    address, description, servers: [ref(`#/servers/${server}`)],
    messages: Object.fromEntries(names.map((name) => [name, ref(`#/components/messages/${name}`)])),
  });
  const catalogMessage = (name: string, payload: Json): void => {
    messages[name] = { name, contentType: 'application/json', payload, bindings: { kafka: { key: { type: 'string' }, bindingVersion: '0.5.0' } } };
  };
  catalogMessage('CatalogHead', CATALOG_HEAD_SCHEMA);
  catalogMessage('CatalogVersionRecord', CATALOG_VERSION_RECORD_SCHEMA);
  catalogMessage('CatalogEntry', CATALOG_ENTRY_SCHEMA);
  const channels: Json = {
    registryEvents: channel(topicName(options.topicPrefix, 'registryEvents'), 'kafka', keys.registry.map(([t, v]) => kafkaMessage(t, v)), 'Every registry fact, keyed by stream (tool or server name), kept forever.'),
    catalog: channel(
      topicName(options.topicPrefix, 'catalog'), 'kafka', ['CatalogHead', 'CatalogVersionRecord', 'CatalogEntry'],
      'Current state of each tool, compacted: a head keyed by tool name and a record per version keyed "name@version", the versions a change touched sent before the head. CatalogEntry is the older whole-tool form.',
    ),
    calls: channel(topicName(options.topicPrefix, 'calls'), 'kafka', keys.calls.map(([t, v]) => kafkaMessage(t, v)), 'Every call, refusal and upstream request the edge saw, keyed by principal.'),
    toolChangeFeed: channel('/v1/events/stream', 'audit', keys.feed.map(([t, v]) => sseMessage(t, v)),
      'Server-sent events: one structured CloudEvent per tool change; `id` goes back as Last-Event-ID (the feed position for estate:admin and estate:audit, an opaque cursor for anyone else); filters `tools`, `types`, `since`.'),
  };
  const receive = (channelName: string): Json => ({
    action: 'receive', channel: ref(`#/channels/${channelName}`),
    messages: Object.keys((channels[channelName] as { messages: Json }).messages).map((name) => ref(`#/channels/${channelName}/messages/${name}`)),
  });
  const audit = new URL(options.auditUrl);
  return {
    asyncapi: '3.0.0',
    info: { title: 'Estate events', version: options.version, description: 'The change feed, the registry log, the catalog and the call log of an estate.' },
    defaultContentType: 'application/json',
    servers: {
      kafka: { host: options.kafkaHost, protocol: 'kafka', description: 'The estate log' },
      audit: {
        host: audit.host, protocol: audit.protocol.replace(':', ''), description: 'Audit (SSE feed), bearer token',
        ...(audit.pathname.length > 1 ? { pathname: audit.pathname.replace(/\/+$/, '') } : {}), security: [ref('#/components/securitySchemes/bearer')],
      },
    },
    channels,
    operations: Object.fromEntries(Object.keys(channels).map((name) => [`receive${name[0].toUpperCase()}${name.slice(1)}`, receive(name)])),
    components: { messages, securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
  };
}
