import { validate, type JsonSchema, type ToolSpec } from '@estate/contracts';
import { createLogger, InMemoryEventBus } from '@estate/platform';
import { bankSpecs } from '../../../examples/bank/bank.specs';
import { http, TEST_SECRET, token } from '../../../test/support/estate.harness';
import { createTestDatabase, randomTopicPrefix } from '../../../test/support/infra';
import { loadRegistryConfig } from './config';
import { startRegistry } from './registry.app';

const ADMIN = { sub: 'root', scope: 'estate:admin estate:publish', clearance: 'restricted' };

/** An open input schema (no additionalProperties: false): undeclared names are accepted with any value. */
const v1: ToolSpec = {
  ...bankSpecs('shop')[0],
  name: 'shop.order',
  version: '1.0.0',
  inputSchema: { type: 'object', properties: { id: { type: 'string', minLength: 1 } }, required: ['id'] },
};
const withNote: ToolSpec = {
  ...v1,
  version: '1.1.0',
  inputSchema: { ...v1.inputSchema, properties: { id: { type: 'string', minLength: 1 }, note: { type: 'string' } } },
};

interface Change { path: string; kind: string; bump: string; breaking: boolean; narrows?: boolean; witness?: unknown; strict: { bump: string; breaking: boolean } }
interface CheckBody { bump: string; compat: { policy: string; strictBump: string }; changes: Change[] }

/** POST /v1/tools/check under each ESTATE_COMPAT setting, against a real registry and PostgreSQL. */
describe.each(['standard', 'strict'] as const)('ESTATE_COMPAT=%s (real PostgreSQL)', (policy) => {
  let base: string;
  let stop: () => Promise<void>;
  let drop: () => Promise<void>;
  let admin: string;

  beforeAll(async () => {
    const db = await createTestDatabase();
    drop = db.drop;
    // standard is the default: leave the variable unset for it, so the default is what is tested.
    const env = {
      ESTATE_JWT_SECRET: TEST_SECRET, ESTATE_TOPIC_PREFIX: randomTopicPrefix(), ESTATE_REGISTRY_PORT: '0',
      ...(policy === 'strict' ? { ESTATE_COMPAT: 'strict' } : {}),
    };
    ({ url: base, stop } = await startRegistry({ ...loadRegistryConfig(env), databaseUrl: db.url }, new InMemoryEventBus(), createLogger('compat-int', 'error')));
    admin = await token(ADMIN);
    expect((await http('POST', `${base}/v1/servers`, admin, { name: 'shop', url: 'http://127.0.0.1:1/mcp', owner: 'payments-team' })).status).toBe(201);
    expect((await http('POST', `${base}/v1/tools`, admin, v1)).status).toBe(201);
  });

  afterAll(async () => {
    await stop();
    await drop();
  });

  it('check names the policy and, for the added optional property, what strict says and a witness the real validator confirms', async () => {
    const { status, body } = await http('POST', `${base}/v1/tools/check`, admin, withNote);
    const added = (b: unknown) => (b as { changes?: Change[]; details?: { changes: Change[] } }).changes ?? (b as { details: { changes: Change[] } }).details.changes;
    if (policy === 'standard') {
      expect(status).toBe(200);
      expect(body).toMatchObject({ bump: 'minor', compat: { policy: 'standard', strictBump: 'major' } });
    } else {
      // 1.1.0 is a minor bump: strict refuses it, saying under which policy.
      expect(status).toBe(422);
      expect(body).toMatchObject({ error: 'BUMP_TOO_SMALL', details: { required: 'major', compat: { policy: 'strict', strictRequired: 'major' } } });
      expect((body as { message: string }).message).toContain('ESTATE_COMPAT=strict');
    }
    const change = added(body).find((c) => c.path === '$.inputSchema.properties.note');
    expect(change).toMatchObject({ kind: 'property-added-optional', narrows: true, strict: { bump: 'major', breaking: true } });
    expect(change?.bump).toBe(policy === 'strict' ? 'major' : 'minor');
    expect(validate(v1.inputSchema as JsonSchema, change?.witness).valid).toBe(true);
    expect(validate(withNote.inputSchema as JsonSchema, change?.witness).valid).toBe(false);
  });

  it('removing a property from the open schema needs a major bump under either policy, naming the removed path', async () => {
    const published = await http('POST', `${base}/v1/tools`, admin, { ...withNote, version: '2.0.0' });
    expect(published.status).toBe(201);
    expect(published.body).toMatchObject({ compat: { policy } });
    const removed = { ...v1, version: '2.1.0' };
    const { status, body } = await http('POST', `${base}/v1/tools/check`, admin, removed);
    expect(status).toBe(422);
    const details = (body as { details: { required: string; changes: Change[] } }).details;
    expect(details.required).toBe('major');
    const change = details.changes.find((c) => c.kind === 'property-removed');
    expect(change).toMatchObject({ path: '$.inputSchema.properties.note', breaking: true, strict: { bump: 'major' } });
    // A call that still sends the note passes both contracts: its effect is what is lost.
    expect(validate(withNote.inputSchema as JsonSchema, change?.witness).valid).toBe(true);
    expect(validate(v1.inputSchema as JsonSchema, change?.witness).valid).toBe(true);
    expect(change?.witness).toHaveProperty('note');
    const major = await http('POST', `${base}/v1/tools/check`, admin, { ...removed, version: '3.0.0' });
    expect(major.status).toBe(200);
    expect(major.body as unknown as CheckBody).toMatchObject({ bump: 'major', compat: { policy, strictBump: 'major' } });
  });
});
