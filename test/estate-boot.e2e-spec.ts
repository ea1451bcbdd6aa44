import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnEstate } from './support/lifecycle.harness';

/** `npm start` refuses a bad setting the way every service does: one "Invalid configuration" listing, exit 1. */
describe('npm start with an invalid setting', () => {
  let dataDir: string;

  beforeAll(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'estate-boot-'));
  });

  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('LOG_LEVEL=verbose is listed as invalid configuration, not a pino stack trace', async () => {
    const estate = await spawnEstate(dataDir, { LOG_LEVEL: 'verbose', LOG_FORMAT: 'json' });
    const { code } = await estate.exited;
    expect(code).toBe(1);
    expect(estate.output()).toContain('Invalid configuration');
    expect(estate.output()).toContain('LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got \\"verbose\\"');
    expect(estate.output()).not.toContain('custom levels');
  }, 60_000);
});
