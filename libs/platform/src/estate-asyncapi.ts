import { asyncApiDocument } from '@estate/events';
import type { CommonConfig } from './env.reader';

/** The estate's version as the AsyncAPI document states it. */
const ESTATE_VERSION = '0.1.0';

/** The AsyncAPI document of this deployment (its topics, broker and audit address), as audit and the registry serve it. */
export function estateAsyncApi(config: Pick<CommonConfig, 'cloudEvents' | 'kafkaBrokers' | 'topicPrefix'>): Record<string, unknown> {
  const { cloudEvents, kafkaBrokers, topicPrefix } = config;
  return asyncApiDocument({
    version: ESTATE_VERSION,
    topicPrefix,
    // Without brokers the estate runs on the PostgreSQL log; the document still names Kafka's usual address.
    kafkaHost: kafkaBrokers[0] ?? '127.0.0.1:9092',
    auditUrl: cloudEvents.auditUrl,
    source: cloudEvents.source,
    schemaBase: cloudEvents.schemaBase,
  });
}
