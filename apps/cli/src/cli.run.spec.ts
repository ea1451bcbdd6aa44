import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeEstateRecord, type EstateRecord } from '@estate/platform';
import { cliEnv } from './cli.run';

describe('the CLI beside a running npm start', () => {
  let dir: string;
  const record = (pid: number): EstateRecord => ({
    pid, startedAt: new Date(0).toISOString(), databaseUrl: 'postgres://x', topicPrefix: 'p',
    urls: { edge: 'http://127.0.0.1:41000/mcp', registry: 'http://127.0.0.1:41001', discovery: 'http://127.0.0.1:41002', audit: 'http://127.0.0.1:41003' },
    secretFile: path.join(dir, 'jwt-secret'),
  });

  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'estate-cli-'));
    writeFileSync(path.join(dir, 'jwt-secret'), 'the-dev-secret\n');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("takes the running estate's URLs and development secret where the environment sets none", () => {
    writeEstateRecord(dir, record(process.pid));
    expect(cliEnv({ ESTATE_DATA_DIR: dir })).toEqual({
      registryUrl: 'http://127.0.0.1:41001', auditUrl: 'http://127.0.0.1:41003', discoveryUrl: 'http://127.0.0.1:41002', token: undefined, secret: 'the-dev-secret',
    });
  });

  it('lets the environment win over the estate it finds', () => {
    writeEstateRecord(dir, record(process.pid));
    expect(cliEnv({ ESTATE_DATA_DIR: dir, ESTATE_JWT_SECRET: 'mine', ESTATE_REGISTRY_URL: 'http://r', ESTATE_TOKEN: 't' })).toMatchObject({ registryUrl: 'http://r', auditUrl: 'http://127.0.0.1:41003', token: 't', secret: 'mine' });
  });

  it('falls back to the usual local ports when the recorded estate is gone or nothing is recorded', () => {
    const defaults = { registryUrl: 'http://127.0.0.1:8001', auditUrl: 'http://127.0.0.1:8003', discoveryUrl: 'http://127.0.0.1:8002', token: undefined, secret: undefined };
    expect(cliEnv({ ESTATE_DATA_DIR: dir })).toEqual(defaults);
    writeEstateRecord(dir, record(2 ** 22 + 12345));
    expect(cliEnv({ ESTATE_DATA_DIR: dir })).toEqual(defaults);
  });
});
