import { readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { asyncApiDocument } from './asyncapi.document';
import { CURRENT_CALL_EVENT_VERSIONS } from './call.events';
import { CURRENT_REGISTRY_EVENT_VERSIONS } from './registry.events';

const SPEC = path.join(__dirname, '../../../node_modules/@asyncapi/specs/schemas/3.0.0-without-$id.json');
const options = {
  version: '1.0.0', topicPrefix: 't-', kafkaHost: '127.0.0.1:9092', auditUrl: 'https://audit.example',
  source: 'urn:estate:test', schemaBase: 'https://audit.example/v1/schemas/events',
};

/** The AsyncAPI 3.0.0 JSON Schema (draft-07), compiled with formats checked. */
function asyncApiValidator() {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  return ajv.compile(JSON.parse(readFileSync(SPEC, 'utf8')) as object);
}

describe('the AsyncAPI document', () => {
  const document = asyncApiDocument(options);

  it('is valid AsyncAPI 3.0.0', () => {
    const validate = asyncApiValidator();
    const ok = validate(JSON.parse(JSON.stringify(document)));
    expect(validate.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
  });

  it('describes every current event type, on Kafka and (registry events) on the SSE feed', () => {
    const messages = Object.keys((document.components as { messages: object }).messages);
    for (const [type, version] of Object.entries({ ...CURRENT_REGISTRY_EVENT_VERSIONS, ...CURRENT_CALL_EVENT_VERSIONS })) {
      expect(messages).toContain(`${type}V${version}`);
    }
    for (const [type, version] of Object.entries(CURRENT_REGISTRY_EVENT_VERSIONS)) expect(messages).toContain(`${type}V${version}CloudEvent`);
    const channels = document.channels as Record<string, { address: string }>;
    expect(channels.registryEvents.address).toBe('t-estate.registry.events');
    expect(channels.toolChangeFeed.address).toBe('/v1/events/stream');
  });

  it('a validator notices a broken document', () => {
    const validate = asyncApiValidator();
    expect(validate({ ...document, channels: { bad: { address: 3 } } })).toBe(false);
  });
});
