/**
 * JSON Schemas for every event payload: the published contract for subscribers outside this
 * codebase. `event.schemas.spec.ts` proves each one agrees with its TypeScript type.
 */
const str = { type: 'string' } as const;
const nonEmpty = { type: 'string', minLength: 1 } as const;
const strings = { type: 'array', items: str } as const;

export const TOOL_SPEC_SCHEMA = {
  type: 'object',
  required: [
    'name', 'version', 'description', 'inputSchema', 'sideEffect', 'requiredScopes',
    'dataClassification', 'tenants', 'owner', 'upstream',
  ],
  properties: {
    name: nonEmpty,
    version: nonEmpty,
    title: str,
    description: str,
    inputSchema: { type: 'object' },
    outputSchema: { type: 'object' },
    sideEffect: { enum: ['read', 'idempotent_write', 'write', 'destructive'] },
    requiredScopes: strings,
    dataClassification: { enum: ['public', 'internal', 'confidential', 'restricted'] },
    tenants: strings,
    owner: nonEmpty,
    upstream: {
      type: 'object',
      required: ['server', 'tool'],
      properties: { server: str, tool: nonEmpty },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
} as const;

const change = {
  type: 'object',
  required: ['path', 'kind', 'breaking', 'message'],
  properties: { path: str, kind: str, breaking: { type: 'boolean' }, message: str, bump: str },
} as const;

export const EVENT_DATA_SCHEMAS = {
  'ServerRegistered@1': {
    type: 'object',
    required: ['name', 'url', 'owner'],
    properties: { name: nonEmpty, url: nonEmpty, owner: nonEmpty },
    additionalProperties: false,
  },
  'ServerRegistered@2': {
    type: 'object',
    required: ['name', 'namespace', 'transport', 'owner', 'allowSampling', 'allowElicitation'],
    properties: {
      name: nonEmpty,
      namespace: str,
      transport: { enum: ['streamable-http', 'stdio'] },
      url: str,
      command: str,
      args: strings,
      owner: nonEmpty,
      allowSampling: { type: 'boolean' },
      allowElicitation: { type: 'boolean' },
      sessionAffinity: { type: 'boolean' },
    },
    additionalProperties: false,
  },
  'ToolVersionPublished@1': {
    type: 'object',
    required: ['spec', 'bump', 'changes'],
    properties: {
      spec: TOOL_SPEC_SCHEMA,
      bump: { enum: ['major', 'minor', 'patch', 'none', 'initial'] },
      changes: { type: 'array', items: change },
    },
    additionalProperties: false,
  },
  'ToolVersionDeprecated@1': {
    type: 'object',
    required: ['name', 'version', 'reason'],
    properties: { name: nonEmpty, version: nonEmpty, reason: nonEmpty, sunsetAt: str, replacement: str },
    additionalProperties: false,
  },
  'ToolVersionRetired@1': {
    type: 'object',
    required: ['name', 'version', 'reason'],
    properties: { name: nonEmpty, version: nonEmpty, reason: nonEmpty },
    additionalProperties: false,
  },
  'ToolVersionSunsetReached@1': {
    type: 'object',
    required: ['name', 'version', 'sunsetAt'],
    properties: { name: nonEmpty, version: nonEmpty, sunsetAt: { type: 'string', format: 'date-time' } },
    additionalProperties: false,
  },
  'ToolQuarantined@1': {
    type: 'object',
    required: ['name', 'version', 'reason'],
    properties: { name: nonEmpty, version: nonEmpty, reason: nonEmpty },
    additionalProperties: false,
  },
  'ToolVersionDriftDetected@1': {
    type: 'object',
    required: ['name', 'version', 'server', 'upstreamTool', 'fields', 'reason'],
    properties: {
      name: nonEmpty, version: nonEmpty, server: str, upstreamTool: nonEmpty,
      fields: { type: 'array', minItems: 1, items: { enum: ['description', 'inputSchema', 'missing', 'outputSchema'] } },
      reason: nonEmpty,
    },
    additionalProperties: false,
  },
  'ToolVersionDeprecationCallers@1': {
    type: 'object',
    required: ['name', 'version', 'deprecationEventId', 'windowDays', 'from', 'to', 'callers', 'total'],
    properties: {
      name: nonEmpty,
      version: nonEmpty,
      deprecationEventId: nonEmpty,
      windowDays: { type: 'integer', minimum: 1 },
      from: { type: 'string', format: 'date-time' },
      to: { type: 'string', format: 'date-time' },
      callers: {
        type: 'array',
        items: {
          type: 'object',
          required: ['principal', 'calls', 'lastCallAt'],
          properties: { principal: str, tenant: str, calls: { type: 'integer', minimum: 1 }, lastCallAt: { type: 'string', format: 'date-time' } },
          additionalProperties: false,
        },
      },
      total: { type: 'integer', minimum: 0 },
    },
    additionalProperties: false,
  },
  'ToolCallCompleted@1': {
    type: 'object',
    required: ['principal', 'tool', 'version', 'outcome', 'durationMs', 'attempts', 'repaired'],
    properties: {
      principal: str,
      tenant: str,
      sessionId: str,
      tool: nonEmpty,
      version: nonEmpty,
      outcome: { enum: ['ok', 'tool_error', 'upstream_error', 'cancelled'] },
      durationMs: { type: 'number', minimum: 0 },
      attempts: { type: 'integer', minimum: 1 },
      repaired: { type: 'integer', minimum: 0 },
      ref: str,
      detail: str,
    },
    additionalProperties: false,
  },
  'ToolCallRefused@1': {
    type: 'object',
    required: ['principal', 'tool', 'reason', 'detail'],
    properties: {
      principal: str,
      tenant: str,
      sessionId: str,
      tool: str,
      toolAsSent: {
        type: 'object',
        required: ['length', 'escaped', 'truncated', 'sha256'],
        properties: { length: { type: 'integer', minimum: 0 }, escaped: { type: 'boolean' }, truncated: { type: 'boolean' }, sha256: str },
        additionalProperties: false,
      },
      version: str,
      reason: {
        enum: [
          'unknown_tool', 'invalid_params', 'invalid_arguments', 'rate_limited',
          'confirmation_required', 'too_large', 'quarantined',
        ],
      },
      detail: str,
    },
    additionalProperties: false,
  },
  'UpstreamRequestRelayed@1': {
    type: 'object',
    required: ['principal', 'server', 'method', 'outcome'],
    properties: {
      principal: nonEmpty,
      tenant: str,
      sessionId: str,
      server: nonEmpty,
      method: { enum: ['sampling/createMessage', 'elicitation/create'] },
      tool: str,
      outcome: { enum: ['answered', 'failed'] },
    },
    additionalProperties: false,
  },
  'UpstreamRequestRefused@1': {
    type: 'object',
    required: ['principal', 'server', 'method', 'reason', 'detail'],
    properties: {
      principal: nonEmpty,
      tenant: str,
      sessionId: str,
      server: nonEmpty,
      method: { enum: ['sampling/createMessage', 'elicitation/create'] },
      tool: str,
      reason: { enum: ['not_allowed', 'no_call_in_flight', 'ambiguous_caller', 'client_not_capable'] },
      detail: str,
    },
    additionalProperties: false,
  },
} as const;

export type EventSchemaKey = keyof typeof EVENT_DATA_SCHEMAS;

export function eventSchemaKey(type: string, version: number): string {
  return `${type}@${version}`;
}
