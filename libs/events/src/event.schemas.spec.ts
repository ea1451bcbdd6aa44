import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { ToolSpec } from '@estate/contracts';
import { ENVELOPE_SCHEMA, type EventEnvelope } from './envelope';
import { EVENT_DATA_SCHEMAS, TOOL_SPEC_SCHEMA, type EventSchemaKey } from './event.schemas';
import type {
  ServerRegisteredData, ServerRegisteredDataV1, ToolQuarantinedData, ToolVersionSunsetReachedData, ToolVersionDeprecatedData,
  ToolVersionPublishedData, ToolVersionRetiredData,
} from './registry.events';
import type { ToolVersionDeprecationCallersData } from './audit.events';
import type { ToolVersionDriftDetectedData } from './drift.events';
import type {
  ToolCallCompletedData, ToolCallRefusedData, UpstreamRequestRefusedData, UpstreamRequestRelayedData,
} from './call.events';

const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats(ajv);

/**
 * Each TypeScript payload type lists its keys here as `Record<keyof T, true>`: adding a field to a
 * type without adding it here fails to compile, and the test below fails when the schema's
 * properties differ from the list.
 */
const KEYS: Record<EventSchemaKey, Record<string, true>> = {
  'ServerRegistered@1': { name: true, url: true, owner: true } satisfies Record<keyof ServerRegisteredDataV1, true>,
  'ServerRegistered@2': {
    name: true, namespace: true, transport: true, url: true, command: true, args: true, owner: true,
    allowSampling: true, allowElicitation: true, sessionAffinity: true,
  } satisfies Record<keyof ServerRegisteredData, true>,
  'ToolVersionPublished@1': { spec: true, bump: true, changes: true } satisfies Record<keyof ToolVersionPublishedData, true>,
  'ToolVersionDeprecated@1': {
    name: true, version: true, reason: true, sunsetAt: true, replacement: true,
  } satisfies Record<keyof ToolVersionDeprecatedData, true>,
  'ToolVersionRetired@1': { name: true, version: true, reason: true } satisfies Record<keyof ToolVersionRetiredData, true>,
  'ToolQuarantined@1': { name: true, version: true, reason: true } satisfies Record<keyof ToolQuarantinedData, true>,
  'ToolVersionSunsetReached@1': { name: true, version: true, sunsetAt: true } satisfies Record<keyof ToolVersionSunsetReachedData, true>,
  'ToolVersionDriftDetected@1': {
    name: true, version: true, server: true, upstreamTool: true, fields: true, reason: true,
  } satisfies Record<keyof ToolVersionDriftDetectedData, true>,
  'ToolVersionDeprecationCallers@1': {
    name: true, version: true, deprecationEventId: true, windowDays: true, from: true, to: true, callers: true, total: true,
  } satisfies Record<keyof ToolVersionDeprecationCallersData, true>,
  'ToolCallCompleted@1': {
    principal: true, tenant: true, sessionId: true, tool: true, version: true, outcome: true,
    durationMs: true, attempts: true, repaired: true, ref: true, detail: true,
  } satisfies Record<keyof ToolCallCompletedData, true>,
  'ToolCallRefused@1': {
    principal: true, tenant: true, sessionId: true, tool: true, toolAsSent: true, version: true, reason: true, detail: true,
  } satisfies Record<keyof ToolCallRefusedData, true>,
  'UpstreamRequestRelayed@1': {
    principal: true, tenant: true, sessionId: true, server: true, method: true, tool: true, outcome: true,
  } satisfies Record<keyof UpstreamRequestRelayedData, true>,
  'UpstreamRequestRefused@1': {
    principal: true, tenant: true, sessionId: true, server: true, method: true, tool: true, reason: true, detail: true,
  } satisfies Record<keyof UpstreamRequestRefusedData, true>,
};

const spec: ToolSpec = {
  name: 'bank.lookup',
  version: '1.0.0',
  title: 'Look up a payment',
  description: 'Returns the status of a payment by reference.',
  inputSchema: { type: 'object', properties: { reference: { type: 'string' } }, required: ['reference'] },
  sideEffect: 'read',
  requiredScopes: ['bank:read'],
  dataClassification: 'internal',
  tenants: [],
  owner: 'payments-team',
  upstream: { server: 'bank', tool: 'lookup' },
};

const SAMPLES: Record<EventSchemaKey, unknown> = {
  'ServerRegistered@1': { name: 'bank', url: 'http://127.0.0.1:9100/mcp', owner: 'payments' } satisfies ServerRegisteredDataV1,
  'ServerRegistered@2': {
    name: 'bank', namespace: 'bank', transport: 'streamable-http', url: 'http://127.0.0.1:9100/mcp',
    owner: 'payments', allowSampling: false, allowElicitation: false,
  } satisfies ServerRegisteredData,
  'ToolVersionPublished@1': {
    spec, bump: 'minor', changes: [{ path: '$.properties.memo', kind: 'property-added-optional', breaking: false, message: 'optional memo added' }],
  } satisfies ToolVersionPublishedData,
  'ToolVersionDeprecated@1': { name: 'bank.lookup', version: '1.0.0', reason: 'use 2.x', sunsetAt: '2027-01-01T00:00:00Z' } satisfies ToolVersionDeprecatedData,
  'ToolVersionRetired@1': { name: 'bank.lookup', version: '1.0.0', reason: 'sunset' } satisfies ToolVersionRetiredData,
  'ToolQuarantined@1': { name: 'bank.lookup', version: '1.0.0', reason: 'upstream schema drifted' } satisfies ToolQuarantinedData,
  'ToolVersionSunsetReached@1': { name: 'bank.lookup', version: '1.0.0', sunsetAt: '2027-01-01T00:00:00.000Z' } satisfies ToolVersionSunsetReachedData,
  'ToolVersionDriftDetected@1': {
    name: 'bank.lookup', version: '1.0.0', server: 'bank', upstreamTool: 'lookup', fields: ['description'], reason: 'upstream drift: lookup changed description',
  } satisfies ToolVersionDriftDetectedData,
  'ToolVersionDeprecationCallers@1': {
    name: 'bank.lookup', version: '1.0.0', deprecationEventId: '0b3c', windowDays: 30, from: '2026-10-31T10:00:00.000Z', to: '2026-11-30T10:00:00.000Z',
    callers: [{ principal: 'alice', calls: 3, lastCallAt: '2026-11-29T09:00:00.000Z' }], total: 1,
  } satisfies ToolVersionDeprecationCallersData,
  'ToolCallCompleted@1': {
    principal: 'alice', tool: 'bank.lookup', version: '1.0.0', outcome: 'ok', durationMs: 1.5, attempts: 1, repaired: 0,
  } satisfies ToolCallCompletedData,
  'ToolCallRefused@1': { principal: 'mallory', tool: 'bank.release', reason: 'unknown_tool', detail: 'Unknown tool: bank.release' } satisfies ToolCallRefusedData,
  'UpstreamRequestRelayed@1': {
    principal: 'alice', sessionId: 's-1', server: 'notes', method: 'sampling/createMessage', tool: 'notes.summarize', outcome: 'answered',
  } satisfies UpstreamRequestRelayedData,
  'UpstreamRequestRefused@1': {
    principal: 'upstream:memo', server: 'memo', method: 'elicitation/create', reason: 'not_allowed', detail: 'memo is not registered for elicitation',
  } satisfies UpstreamRequestRefusedData,
};

describe('event schemas', () => {
  it.each(Object.keys(EVENT_DATA_SCHEMAS) as EventSchemaKey[])('%s lists exactly the fields of its TypeScript type', (key) => {
    const schema = EVENT_DATA_SCHEMAS[key] as { properties: Record<string, unknown> };
    expect(Object.keys(schema.properties).sort()).toEqual(Object.keys(KEYS[key]).sort());
  });

  it.each(Object.keys(EVENT_DATA_SCHEMAS) as EventSchemaKey[])('%s accepts a value typed by its TypeScript type', (key) => {
    const check = ajv.compile(EVENT_DATA_SCHEMAS[key]);
    expect(check(SAMPLES[key])).toBe(true);
  });

  it('refuses a published spec without a side-effect class', () => {
    const { sideEffect: _omit, ...withoutSideEffect } = spec;
    const check = ajv.compile(TOOL_SPEC_SCHEMA);
    expect(check(withoutSideEffect)).toBe(false);
    expect(check.errors?.[0]).toMatchObject({ keyword: 'required', params: { missingProperty: 'sideEffect' } });
  });

  it('the envelope schema accepts a full envelope and names every envelope field', () => {
    const envelope: EventEnvelope = {
      id: '0b3c', type: 'ToolVersionRetired', version: 1, stream: 'bank.lookup', position: 3,
      occurredAt: '2026-11-29T10:00:00.000Z', actor: 'alice', correlationId: 'c-1',
      data: SAMPLES['ToolVersionRetired@1'],
    };
    const fields: Record<keyof EventEnvelope, true> = {
      id: true, type: true, version: true, stream: true, position: true, occurredAt: true, actor: true,
      correlationId: true, data: true,
    };
    expect(ajv.validate(ENVELOPE_SCHEMA, envelope)).toBe(true);
    expect(Object.keys(ENVELOPE_SCHEMA.properties).sort()).toEqual(Object.keys(fields).sort());
  });
});
