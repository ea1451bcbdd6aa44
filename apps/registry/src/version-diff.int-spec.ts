import type { ToolSpec } from '@estate/contracts';
import { createLogger, InMemoryEventBus } from '@estate/platform';
import { bankSpecs } from '../../../examples/bank/bank.specs';
import { http, TEST_SECRET, token } from '../../../test/support/estate.harness';
import { createTestDatabase, randomTopicPrefix } from '../../../test/support/infra';
import { loadRegistryConfig } from './config';
import { startRegistry } from './registry.app';

const ADMIN = { sub: 'root', scope: 'estate:admin estate:publish', clearance: 'restricted' };
const READER = { sub: 'reader', scope: 'bank:read', clearance: 'restricted' };

describe('GET /v1/tools/{name}/versions/{version}/diff (real PostgreSQL)', () => {
  let base: string;
  let stop: () => Promise<void>;
  let drop: () => Promise<void>;
  let admin: string;
  let reader: string;
  const v1: ToolSpec = { ...bankSpecs('pay')[0], version: '1.0.0' };
  const withRequired = (spec: ToolSpec, version: string): ToolSpec => {
    const schema = spec.inputSchema as { properties?: Record<string, unknown>; required?: string[] };
    return {
      ...spec, version, description: `${spec.description} Needs a reason.`,
      inputSchema: { ...schema, properties: { ...schema.properties, reason: { type: 'string' } }, required: [...(schema.required ?? []), 'reason'] },
    };
  };

  beforeAll(async () => {
    const db = await createTestDatabase();
    drop = db.drop;
    const env = { ESTATE_JWT_SECRET: TEST_SECRET, ESTATE_TOPIC_PREFIX: randomTopicPrefix(), ESTATE_REGISTRY_PORT: '0' };
    ({ url: base, stop } = await startRegistry({ ...loadRegistryConfig(env), databaseUrl: db.url }, new InMemoryEventBus(), createLogger('diff-int', 'error')));
    admin = await token(ADMIN);
    reader = await token(READER);
    expect((await http('POST', `${base}/v1/servers`, admin, { name: 'pay', url: 'http://127.0.0.1:1/mcp', owner: 'payments-team' })).status).toBe(201);
    for (const spec of [v1, withRequired(v1, '2.0.0')]) expect((await http('POST', `${base}/v1/tools`, admin, spec)).status).toBe(201);
  });

  afterAll(async () => {
    await stop();
    await drop();
  });

  it('names the previous version, the bumps, every change with its path and a witness for a breaking one', async () => {
    const { status, body } = await http('GET', `${base}/v1/tools/${v1.name}/versions/2.0.0/diff`, admin);
    expect(status).toBe(200);
    expect(body).toMatchObject({ name: v1.name, version: '2.0.0', previous: '1.0.0', declared: 'major', required: 'major' });
    const changes = (body as { changes: Array<{ path: string; breaking: boolean }> }).changes;
    expect(changes).toEqual(expect.arrayContaining([expect.objectContaining({ path: expect.stringContaining('$.inputSchema'), breaking: true })]));
    expect(changes.some((c) => c.path === '$.description')).toBe(true);
    // The witness is an input the old contract accepted and the new one refuses: it lacks "reason".
    const witness = (body as { witness?: Record<string, unknown> }).witness;
    expect(witness).toBeDefined();
    expect(witness).not.toHaveProperty('reason');
  });

  it('answers the first version with no previous and no changes', async () => {
    const { status, body } = await http('GET', `${base}/v1/tools/${v1.name}/versions/1.0.0/diff`, admin);
    expect(status).toBe(200);
    expect(body).toEqual({ name: v1.name, version: '1.0.0', previous: null, declared: null, required: null, changes: [] });
  });

  it('is 404 for a version never published and 403 for a caller who does not govern tools', async () => {
    expect(await http('GET', `${base}/v1/tools/${v1.name}/versions/9.9.9/diff`, admin)).toMatchObject({ status: 404, body: { error: 'VERSION_NOT_FOUND' } });
    expect(await http('GET', `${base}/v1/tools/nope/versions/1.0.0/diff`, admin)).toMatchObject({ status: 404, body: { error: 'VERSION_NOT_FOUND' } });
    expect(await http('GET', `${base}/v1/tools/${v1.name}/versions/2.0.0/diff`, reader)).toMatchObject({ status: 403, body: { error: 'FORBIDDEN' } });
    expect(await http('GET', `${base}/v1/tools/nope/versions/1.0.0/diff`, reader)).toMatchObject({ status: 403, body: { error: 'FORBIDDEN' } });
  });
});
