import { cloudEventHeaders, cloudEventType, estateEventType, toCloudEvent } from './cloud-event';
import type { EventEnvelope } from './envelope';

const envelope: EventEnvelope = {
  id: 'evt-1',
  type: 'ToolVersionDeprecated',
  version: 1,
  stream: 'tool:payments.refund',
  position: 3,
  occurredAt: '2026-11-30T10:00:00.000Z',
  actor: 'alice',
  correlationId: 'corr-9',
  data: { name: 'payments.refund', version: '1.0.0', sunset: '2027-01-01' },
};
const options = { source: 'urn:estate:test', schemaBase: 'https://estate.example/v1/schemas/events/' };

describe('CloudEvents envelope', () => {
  it('names types in reverse-DNS form and maps them back', () => {
    expect(cloudEventType('ToolVersionDeprecated')).toBe('io.estate.tool.version.deprecated');
    expect(cloudEventType('ServerRegistered')).toBe('io.estate.server.registered');
    expect(estateEventType('io.estate.tool.version.deprecated', ['ToolVersionPublished', 'ToolVersionDeprecated'])).toBe('ToolVersionDeprecated');
    expect(estateEventType('io.other.thing', ['ToolVersionDeprecated'])).toBeUndefined();
  });

  it('builds a structured event with the tool as subject and a dataschema per type and version', () => {
    expect(toCloudEvent(envelope, options)).toEqual({
      specversion: '1.0',
      id: 'evt-1',
      source: 'urn:estate:test',
      type: 'io.estate.tool.version.deprecated',
      subject: 'payments.refund',
      time: '2026-11-30T10:00:00.000Z',
      datacontenttype: 'application/json',
      dataschema: 'https://estate.example/v1/schemas/events/ToolVersionDeprecated/1.json',
      estateschemaversion: 1,
      estatestream: 'tool:payments.refund',
      estateposition: 3,
      estatecorrelation: 'corr-9',
      estateactor: 'alice',
      data: envelope.data,
    });
  });

  it('takes the subject of a publish from its spec and gives a server event none', () => {
    const published = toCloudEvent({ ...envelope, type: 'ToolVersionPublished', data: { spec: { name: 'payments.charge' } } }, options);
    expect(published.subject).toBe('payments.charge');
    const server = toCloudEvent({ ...envelope, type: 'ServerRegistered', data: { name: 'payments' } }, options);
    expect(server).not.toHaveProperty('subject');
  });

  it('puts every attribute but the data into ce_ headers for binary mode', () => {
    const headers = cloudEventHeaders(toCloudEvent(envelope, options));
    expect(headers).toMatchObject({
      'content-type': 'application/json',
      ce_specversion: '1.0',
      ce_id: 'evt-1',
      ce_type: 'io.estate.tool.version.deprecated',
      ce_subject: 'payments.refund',
      ce_estateposition: '3',
    });
    expect(Object.keys(headers).some((key) => key.includes('data') && key !== 'ce_dataschema')).toBe(false);
  });
});
