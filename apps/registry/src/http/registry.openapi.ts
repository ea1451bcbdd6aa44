import { TOOL_SPEC_SCHEMA } from '@estate/events';

const problem = { $ref: '#/components/schemas/Problem' };
const responses = (ok: string, codes: number[]) => ({
  [ok]: { description: 'done' },
  ...Object.fromEntries(codes.map((c) => [String(c), { description: 'refused', content: { 'application/json': { schema: problem } } }])),
});
const json = (schema: unknown) => ({ content: { 'application/json': { schema } } });
/** A read answered with a body, refused with 401, or 404 for a missing name and a hidden one alike. */
const read = (summary: string, description: string, schema: unknown, parameters?: unknown[]) => ({
  get: {
    summary, description, ...(parameters ? { parameters } : {}),
    responses: { ...responses('200', [401, 404]), '200': { description: 'what the caller may see', ...json(schema) } },
  },
});
const status = { enum: ['active', 'deprecated', 'retired'] };
const READS = 'Publishers and admins (estate:publish, estate:admin) read everything. Any other caller reads only the versions it could '
  + 'discover at the MCP edge (visible to its scopes, tenant and clearance; not retired, not quarantined), with MCP fields only.';
const specBody = { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/ToolSpec' } } } };
const lifecycleBody = (fields: Record<string, unknown>) => ({
  required: true,
  content: { 'application/json': { schema: { type: 'object', required: ['reason'], properties: { reason: { type: 'string', minLength: 1, maxLength: 1000, description: 'Why: a deprecation\'s or retirement\'s reason reaches agents still calling the version (a quarantine\'s only publishers and admins); held to the prompt-text rules' }, ...fields }, additionalProperties: false } } },
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
      ToolSummary: {
        type: 'object',
        required: ['name', 'versions'],
        properties: { name: { type: 'string' }, latest: { type: 'string', description: 'The newest stable (non-pre-release) version; the newest version when there is no stable one.' }, versions: { type: 'object', additionalProperties: { enum: ['active', 'deprecated', 'retired', 'quarantined'] }, description: 'each version\'s status, or quarantined for a quarantined one (publishers and admins only see those)' } },
      },
      AgentVersionView: {
        type: 'object',
        required: ['version', 'status', 'tool'],
        description: 'A version as a caller without estate:publish or estate:admin reads it: no scopes, tenants, classification, owner or upstream.',
        properties: {
          version: { type: 'string' }, status, sunsetAt: { type: 'string', format: 'date-time' },
          tool: { type: 'object', required: ['name', 'description', 'inputSchema'], description: 'the tool as MCP clients see it in tools/list' },
        },
      },
      GovernedVersion: {
        type: 'object',
        required: ['spec', 'status', 'quarantined'],
        description: 'A version as publishers and admins read it.',
        properties: { spec: { type: 'object', description: 'the ToolSpec as published' }, status, quarantined: { type: 'boolean' }, sunsetAt: { type: 'string', format: 'date-time' } },
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
    '/asyncapi.json': { get: { summary: 'The AsyncAPI 3.0 document of the registry log and the other topics', security: [], responses: { '200': { description: 'the AsyncAPI document' } } } },
    '/v1/events': {
      get: {
        summary: 'The event store, page by page, for rebuilding and verifying projections (estate:admin)',
        parameters: [
          { name: 'after', in: 'query', schema: { type: 'string', pattern: '^\\d{1,18}$', default: '0' }, description: 'the store position to read after' },
          { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 1000, default: 500 } },
        ],
        responses: { ...responses('200', [400, 401, 403]), '200': { description: 'a page of envelopes', ...json({ type: 'object' }) } },
      },
    },
    '/v1/servers/{name}': read('One registered server (estate:admin or estate:publish)', 'Any other caller gets the 404 of an unregistered server.', { $ref: '#/components/schemas/ServerRegistration' }, [nameParams[0]]),
    '/v1/servers': { post: { summary: 'Register an upstream server (estate:admin)', requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/ServerRegistration' } } } }, responses: responses('201', [400, 401, 403, 409, 415]), description: '409: another definition under the name (SERVER_ALREADY_REGISTERED), or a namespace that already holds another server\'s tools or a name that differs from a registered one only in case (NAMESPACE_IN_USE).' } },
    '/v1/tools': {
      get: {
        summary: 'List the published tools the caller may see', description: READS,
        responses: { ...responses('200', [401]), '200': { description: 'what the caller may see', ...json({ type: 'object', required: ['tools'], properties: { tools: { type: 'array', items: { $ref: '#/components/schemas/ToolSummary' } } } }) } },
      },
      post: { summary: 'Publish a tool version (estate:publish)', requestBody: specBody, responses: responses('201', [400, 401, 403, 409, 413, 415, 422]) },
    },
    '/v1/tools/check': { post: { summary: 'Dry-run a publish: the same decision, nothing stored; `compat` names the ESTATE_COMPAT policy in force and each change carries what the strict policy says (`strict`, and `narrows` with a witness where the two part)', requestBody: specBody, responses: responses('200', [400, 401, 403, 409, 413, 415, 422]) } },
    '/v1/tools/{name}': read('One tool and the versions the caller may see', READS, {
      type: 'object', required: ['name', 'versions'],
      properties: { name: { type: 'string' }, versions: { type: 'object', additionalProperties: { oneOf: [{ $ref: '#/components/schemas/GovernedVersion' }, { $ref: '#/components/schemas/AgentVersionView' }] } } },
    }, [nameParams[0]]),
    '/v1/tools/{name}/history': read('Every change of the tool, oldest first, with when and (for publishers and admins) who', READS, {
      type: 'object', required: ['name', 'changes'],
      properties: { name: { type: 'string' }, changes: { type: 'array', items: { type: 'object', required: ['position', 'change', 'version', 'at', 'summary', 'details'], properties: { position: { type: 'integer' }, change: { enum: ['published', 'deprecated', 'retired', 'quarantined', 'sunset-reached'] }, version: { type: 'string' }, at: { type: 'string', format: 'date-time' }, actor: { type: 'string' }, summary: { type: 'string' }, details: { type: 'object' } } } } },
    }, [nameParams[0]]),
    '/v1/tools/{name}/versions/{version}': read('One version, if the caller may see it', READS, {
      oneOf: [{ $ref: '#/components/schemas/GovernedVersion' }, { $ref: '#/components/schemas/AgentVersionView' }],
    }, nameParams),
    '/v1/tools/{name}/versions/{version}/diff': {
      get: {
        summary: 'What changed from the previous version: declared and required bump, every change with its path, the witness of a breaking one (estate:publish or estate:admin)',
        parameters: nameParams,
        responses: { ...responses('200', [401, 403, 404]), '200': { description: 'the classification', ...json({ type: 'object', required: ['name', 'version', 'previous', 'changes'], properties: { name: { type: 'string' }, version: { type: 'string' }, previous: { type: ['string', 'null'] }, declared: { type: ['string', 'null'] }, required: { type: ['string', 'null'] }, changes: { type: 'array', items: { type: 'object' } }, witness: {} } }) } },
      },
    },
    '/v1/tools/{name}/versions/{version}/deprecate': { post: { summary: 'Deprecate a version', parameters: nameParams, requestBody: lifecycleBody({ sunsetAt: { type: 'string', format: 'date-time' }, replacement: { type: 'string' } }), responses: responses('200', [400, 401, 403, 404, 409, 415, 422]) } },
    '/v1/tools/{name}/versions/{version}/retire': { post: { summary: 'Retire a version', parameters: nameParams, requestBody: lifecycleBody({}), responses: responses('200', [400, 401, 403, 404, 409, 415]) } },
    '/v1/tools/{name}/versions/{version}/quarantine': { post: { summary: 'Quarantine a version everywhere (estate:quarantine or estate:publish); idempotent', parameters: nameParams, requestBody: lifecycleBody({}), responses: responses('200', [400, 401, 403, 404, 415]) } },
  },
} as const;
