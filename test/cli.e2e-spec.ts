import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLogger, InMemoryEventBus } from '@estate/platform';
import { bankSpecs } from '../examples/bank/bank.specs';
import { composeEstate } from '../apps/estate/src/estate.composition';
import { estate } from './support/cli.runner';
import { createTestDatabase } from './support/infra';
import { TEST_SECRET } from './support/estate.harness';


describe('the estate CLI against a real registry', () => {
  const stops: Array<() => Promise<void>> = [];
  let env: Record<string, string>;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'estate-cli-'));
  const file = (name: string, value: unknown) => {
    const target = path.join(dir, name);
    writeFileSync(target, JSON.stringify(value));
    return target;
  };

  beforeAll(async () => {
    const db = await createTestDatabase();
    const composed = await composeEstate({
      env: { ESTATE_JWT_SECRET: TEST_SECRET, ESTATE_REGISTRY_PORT: '0' }, databaseUrl: db.url, logger: createLogger('cli-test', 'error'), bus: new InMemoryEventBus(), services: ['registry'],
    });
    stops.push(db.drop, composed.stop);
    env = { ESTATE_REGISTRY_URL: composed.registry?.url ?? '', ESTATE_JWT_SECRET: TEST_SECRET, ESTATE_TOKEN: '' };
    const minted = await estate(['token', '--sub', 'ci', '--scope', 'estate:admin estate:publish'], env);
    expect(minted.code).toBe(0);
    env.ESTATE_TOKEN = minted.stdout.trim();
  });

  afterAll(async () => {
    for (const stop of stops.reverse()) await stop();
  });

  it('registers, publishes, and lets CI gate a breaking change with the exit code', async () => {
    expect((await estate(['register-server', '--name', 'bank', '--url', 'http://127.0.0.1:9/mcp', '--owner', 'payments'], env)).code).toBe(0);
    const spec = bankSpecs('bank')[0];
    const published = await estate(['publish', file('v1.json', spec)], env);
    expect(published.code).toBe(0);
    expect(published.stdout).toContain('201');

    const required = { ...spec, version: '1.1.0', inputSchema: { ...spec.inputSchema, properties: { ...(spec.inputSchema.properties as object), memo: { type: 'string' } }, required: ['reference', 'memo'] } };
    const refused = await estate(['check', file('v1.1.json', required)], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('422');
    expect(refused.stderr).toContain('BUMP_TOO_SMALL');
    expect(refused.stderr).toContain('$.inputSchema.properties.memo');
    expect(refused.stderr).toContain('"witness": {');

    const major = await estate(['check', file('v2.json', { ...required, version: '2.0.0' })], env);
    expect(major.code).toBe(0);
    expect(major.stdout).toContain('"bump": "major"');
    expect(refused.stderr).toContain('policy: standard (ESTATE_COMPAT); under strict this needs: major');
  });

  it('check shows the policy in force and what the strict policy says of each change on an open schema', async () => {
    const open = {
      ...bankSpecs('bank')[0], name: 'bank.notes', version: '1.0.0',
      inputSchema: { type: 'object', properties: { reference: { type: 'string' } }, required: ['reference'] },
    };
    expect((await estate(['publish', file('notes-v1.json', open)], env)).code).toBe(0);
    const noted = { ...open, version: '1.1.0', inputSchema: { ...open.inputSchema, properties: { reference: { type: 'string' }, note: { type: 'string' } } } };
    const checked = await estate(['check', file('notes-v1.1.json', noted)], env);
    expect(checked.code).toBe(0);
    expect(checked.stdout).toContain('"bump": "minor"');
    expect(checked.stdout).toContain('policy: standard (ESTATE_COMPAT); under strict this needs: major');
    expect(checked.stdout).toMatch(/ {2}minor {2}\$\.inputSchema\.properties\.note {2}property-added-optional {2}strict: major {2}narrows: the new contract refuses \{"reference":"[^"]*","note":[^"]/);
  });

  it('tells a refusal (exit 1) from a check it could not make (exit 2), naming what it could not reach', async () => {
    const spec = { ...bankSpecs('bank')[0], version: '1.1.0' };
    const unreachable = await estate(['check', file('unreachable.json', spec)], { ...env, ESTATE_REGISTRY_URL: 'http://127.0.0.1:9' });
    expect(unreachable.code).toBe(2);
    expect(unreachable.stderr).toContain('could not reach http://127.0.0.1:9 (');
    expect(unreachable.stderr).not.toContain('fetch failed');
    const agent = (await estate(['token', '--sub', 'agent', '--scope', 'bank:read'], env)).stdout.trim();
    const forbidden = await estate(['check', file('forbidden.json', spec)], { ...env, ESTATE_TOKEN: agent });
    expect(forbidden).toMatchObject({ code: 2, stderr: expect.stringContaining('403') });
    const verify = await estate(['verify'], { ...env, ESTATE_TOKEN: agent, ESTATE_AUDIT_URL: env.ESTATE_REGISTRY_URL, ESTATE_DISCOVERY_URL: env.ESTATE_REGISTRY_URL });
    expect(verify.code).toBe(2);
    expect(verify.stderr).toContain('audit chain: could not be checked (');
    expect(verify.stderr).not.toContain('NOT intact');
  });

  it('explains how to use a command it cannot run, with exit code 2 (could not run), never a refusal\'s 1', async () => {
    const result = await estate(['deprecate', 'bank.lookup'], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('usage: estate deprecate <tool> <version> --reason');
    const unknownOption = await estate(['check', file('any.json', bankSpecs('bank')[0]), '--bogus'], env);
    expect(unknownOption).toMatchObject({ code: 2, stderr: expect.stringContaining("Unknown option '--bogus'") });
    expect(unknownOption.stderr).toContain('estate <command>');
    expect(await estate(['frobnicate'], env)).toMatchObject({ code: 2, stderr: expect.stringContaining("unknown command 'frobnicate'") });
  });

  it('prints the usage and exits 0 when asked for help, alone or after any command', async () => {
    for (const args of [[], ['help'], ['-h'], ['--help'], ['check', '--help'], ['check', '-h'], ['token', '--help'], ['verify', '-h'], ['stdio', '--help']]) {
      const result = await estate(args, env);
      expect({ args, code: result.code, usage: result.stdout.startsWith('estate <command>') }).toEqual({ args, code: 0, usage: true });
    }
  });

  it('a check without a token could not be made (exit 2), not a refusal', async () => {
    const empty = mkdtempSync(path.join(os.tmpdir(), 'estate-cli-no-estate-'));
    const result = await estate(['check', file('no-token.json', bankSpecs('bank')[0])], { ...env, ESTATE_TOKEN: '', ESTATE_JWT_SECRET: '', ESTATE_DATA_DIR: empty });
    expect(result).toMatchObject({ code: 2, stderr: expect.stringContaining('set ESTATE_TOKEN') });
    expect((await estate(['verify'], { ...env, ESTATE_TOKEN: '', ESTATE_DATA_DIR: empty })).code).toBe(2);
  });
});
