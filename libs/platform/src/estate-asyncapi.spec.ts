import { readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { estateAsyncApi } from './estate-asyncapi';

const SPEC = path.join(__dirname, '../../../node_modules/@asyncapi/specs/schemas/3.0.0-without-$id.json');
const cloudEvents = { source: 'urn:estate:test', schemaBase: 'http://127.0.0.1:41234/v1/schemas/events', auditUrl: 'http://127.0.0.1:41234' };

type Document = { servers: Record<string, { host: string }>; channels: Record<string, unknown>; operations: Record<string, unknown>; components: { messages: Record<string, unknown> } };

function validAsyncApi(document: object): unknown[] {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  const validate = ajv.compile(JSON.parse(readFileSync(SPEC, 'utf8')) as object);
  validate(JSON.parse(JSON.stringify(document)));
  return validate.errors ?? [];
}

describe("the estate's AsyncAPI document (audit's and the registry's)", () => {
  it('on the PostgreSQL log: the feed at the advertised address, and no Kafka server, topic or message', () => {
    const document = estateAsyncApi({ bus: 'postgres', kafkaBrokers: [], topicPrefix: 't-', cloudEvents }) as Document;
    expect(validAsyncApi(document)).toEqual([]);
    expect(document.servers).toEqual({ audit: expect.objectContaining({ host: '127.0.0.1:41234', protocol: 'http' }) });
    expect(Object.keys(document.channels)).toEqual(['toolChangeFeed']);
    expect(Object.keys(document.operations)).toEqual(['receiveToolChangeFeed']);
    const messages = Object.keys(document.components.messages);
    expect(messages).toContain('ToolVersionDeprecatedV1CloudEvent');
    expect(messages.filter((name) => !name.endsWith('CloudEvent'))).toEqual([]);
  });

  it('on Kafka: the broker it uses, with the registry log, the catalog and the call log', () => {
    const document = estateAsyncApi({ bus: 'kafka', kafkaBrokers: ['kafka-1:9092', 'kafka-2:9092'], topicPrefix: 't-', cloudEvents }) as Document;
    expect(validAsyncApi(document)).toEqual([]);
    expect(document.servers.kafka).toMatchObject({ host: 'kafka-1:9092', protocol: 'kafka' });
    expect(document.servers.audit).toMatchObject({ host: '127.0.0.1:41234' });
    expect(Object.keys(document.channels)).toEqual(['registryEvents', 'catalog', 'calls', 'toolChangeFeed']);
    expect(Object.keys(document.components.messages)).toEqual(expect.arrayContaining(['ToolCallCompletedV1', 'CatalogEntry', 'ToolVersionDeprecatedV1CloudEvent']));
  });
});
