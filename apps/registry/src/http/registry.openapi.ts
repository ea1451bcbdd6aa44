import { TOOL_SPEC_SCHEMA } from '@estate/events';

const problem = { $ref: '#/components/schemas/Problem' };
const responses = (ok: string, codes: number[]) => ({
  [ok]: { description: 'done' },
  ...Object.fromEntries(codes.map((c) => [String(c), { description: 'refused', content: { 'application/json': { schema: problem } } }])),
});
const specBody = { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/ToolSpec' } } } };
const lifecycleBody = (fields: Record<string, unknown>) => ({
  required: true,
  content: { 'application/json': { schema: { type: 'object', required: ['reason'], properties: { reason: { type: 'string', minLength: 1 }, ...fields }, additionalProperties: false } } },
});
const nameParams = [
  { name: 'name', in: 'path', required: true, schema: { type: 'string' } },
  { name: 'version', in: 'path', required: true, schema: { type: 'string' } },
];

/** The registry's REST contract, served at /openapi.json. */
export const REGISTRY_OPENAPI = {
  openapi: '3.1.0',
  info: { title: 'Estate registry', version: '0.1.0', description: 'Register upstream MCP servers and publish tool contracts under enforced semver.' },
  components: {
    securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
    schemas: {
      ToolSpec: TOOL_SPEC_SCHEMA,
      Problem: {
        type: 'object',
        required: ['error', 'message'],
        properties: { error: { type: 'string' }, message: { type: 'string' }, details: {} },
      },
      Readiness: {
        type: 'object',
        required: ['status', 'checks', 'failing'],
        properties: {
          status: { enum: ['ready', 'not_ready'] },
          checks: { type: 'array', items: { type: 'object', required: ['name', 'state'], properties: { name: { type: 'string' }, state: { enum: ['pass', 'fail'] }, reason: { type: 'string' } } } },
          failing: { type: 'array', items: { type: 'string' } },
          relay: { type: 'object', description: 'admin only: events waiting to be relayed, the oldest one\'s age, the last relay error' },
        },
      },
      ServerRegistration: {
        type: 'object',
        required: ['name', 'owner'],
        properties: {
          name: { type: 'string' }, namespace: { type: 'string' }, transport: { enum: ['streamable-http', 'stdio'] },
          url: { type: 'string' }, command: { type: 'string' }, args: { type: 'array', items: { type: 'string' } },
          owner: { type: 'string' }, allowSampling: { type: 'boolean' }, allowElicitation: { type: 'boolean' }, sessionAffinity: { type: 'boolean' },
        },
        additionalProperties: false,
      },
    },
  },
  security: [{ bearer: [] }],
  paths: {
    '/healthz': { get: { summary: 'Liveness: {"status":"ok"} and nothing else', security: [], responses: { '200': { description: 'up' } } } },
    '/readyz': {
      get: {
        summary: 'Readiness: database and relay backlog checks; reasons and figures only with an estate:admin token',
        security: [{}, { bearer: [] }],
        responses: {
          '200': { description: 'ready', content: { 'application/json': { schema: { $ref: '#/components/schemas/Readiness' } } } },
          '503': { description: 'not ready (Retry-After); `failing` names the failing checks', content: { 'application/json': { schema: { $ref: '#/components/schemas/Readiness' } } } },
        },
      },
    },
    '/v1/status': { get: { summary: 'The readiness report with every figure (estate:admin)', responses: { ...responses('200', [401, 403]), '200': { description: 'the report', content: { 'application/json': { schema: { $ref: '#/components/schemas/Readiness' } } } } } } },
    '/openapi.json': { get: { summary: 'This document', security: [], responses: { '200': { description: 'the OpenAPI document' } } } },
    '/v1/servers/{name}': { get: { summary: 'One registered server', parameters: [nameParams[0]], responses: responses('200', [401, 404]) } },
    '/v1/servers': { post: { summary: 'Register an upstream server (estate:admin)', requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/ServerRegistration' } } } }, responses: responses('201', [400, 401, 403, 409]) } },
    '/v1/tools': {
      get: { summary: 'List published tools', responses: responses('200', [401]) },
      post: { summary: 'Publish a tool version (estate:publish)', requestBody: specBody, responses: responses('201', [400, 401, 403, 409, 422]) },
    },
    '/v1/tools/check': { post: { summary: 'Dry-run a publish: the same decision, nothing stored', requestBody: specBody, responses: responses('200', [400, 401, 403, 409, 422]) } },
    '/v1/tools/{name}': { get: { summary: 'One tool and its versions', parameters: [nameParams[0]], responses: responses('200', [401, 404]) } },
    '/v1/tools/{name}/versions/{version}': { get: { summary: 'One version', parameters: nameParams, responses: responses('200', [401, 404]) } },
    '/v1/tools/{name}/versions/{version}/deprecate': { post: { summary: 'Deprecate a version', parameters: nameParams, requestBody: lifecycleBody({ sunsetAt: { type: 'string', format: 'date-time' }, replacement: { type: 'string' } }), responses: responses('200', [400, 401, 403, 404, 409, 422]) } },
    '/v1/tools/{name}/versions/{version}/retire': { post: { summary: 'Retire a version', parameters: nameParams, requestBody: lifecycleBody({}), responses: responses('200', [400, 401, 403, 404, 409]) } },
    '/v1/tools/{name}/versions/{version}/quarantine': { post: { summary: 'Quarantine a version everywhere (estate:quarantine or estate:publish); idempotent', parameters: nameParams, requestBody: lifecycleBody({}), responses: responses('200', [400, 401, 403, 404]) } },
  },
} as const;
