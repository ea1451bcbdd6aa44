import { asyncApiDocument } from '@estate/events';
import type { CommonConfig } from './env.reader';

type Json = Record<string, unknown>;
type Ref = { $ref: string };

/** The estate's version as the AsyncAPI document states it. */
const ESTATE_VERSION = '0.1.0';
const KAFKA_SERVER = '#/servers/kafka';

/**
 * The AsyncAPI document of this deployment, as audit and the registry both serve it: the `audit`
 * server at the address audit is reached at, and the Kafka server with its topics only when Kafka
 * is the bus. On the PostgreSQL log there is no broker a client could reach, so the SSE feed is all
 * the document describes.
 */
export function estateAsyncApi(config: Pick<CommonConfig, 'bus' | 'cloudEvents' | 'kafkaBrokers' | 'topicPrefix'>): Json {
  const { cloudEvents, kafkaBrokers, topicPrefix } = config;
  const document = asyncApiDocument({
    version: ESTATE_VERSION,
    topicPrefix,
    kafkaHost: kafkaBrokers[0] ?? '127.0.0.1:9092',
    auditUrl: cloudEvents.auditUrl,
    source: cloudEvents.source,
    schemaBase: cloudEvents.schemaBase,
  });
  return config.bus === 'kafka' ? document : withoutKafka(document);
}

function withoutKafka(document: Json): Json {
  const { kafka: _kafka, ...servers } = document.servers as Json;
  const channels = Object.fromEntries(
    Object.entries(document.channels as Record<string, { servers?: Ref[]; messages?: Record<string, Ref> }>)
      .filter(([, channel]) => !(channel.servers ?? []).some((server) => server.$ref === KAFKA_SERVER)),
  );
  const kept = new Set(Object.keys(channels).map((name) => `#/channels/${name}`));
  const operations = Object.fromEntries(
    Object.entries(document.operations as Record<string, { channel: Ref }>).filter(([, operation]) => kept.has(operation.channel.$ref)),
  );
  const used = new Set(Object.values(channels).flatMap((channel) => Object.values(channel.messages ?? {}).map((message) => message.$ref.split('/').pop())));
  const components = document.components as { messages: Json } & Json;
  const messages = Object.fromEntries(Object.entries(components.messages).filter(([name]) => used.has(name)));
  return { ...document, servers, channels, operations, components: { ...components, messages } };
}
