/**
 * Jest globalTeardown: stops exactly what global-setup.ts started (a testcontainers broker, a
 * lease on the local broker, an embedded PostgreSQL) and leaves anything given through the
 * environment alone.
 */
import * as fs from 'node:fs';
import { INFRA_STATE_FILE } from './infra';

interface Handles {
  state: { pid: number; assigned: string[] };
  stopKafka?: () => Promise<void>;
  stopPostgres?: () => Promise<void>;
}

type GlobalWithInfra = typeof globalThis & { __ESTATE_INFRA__?: Handles };

export default async function globalTeardown(): Promise<void> {
  const g = globalThis as GlobalWithInfra;
  const h = g.__ESTATE_INFRA__;
  if (!h) return;
  g.__ESTATE_INFRA__ = undefined;
  const results = await Promise.allSettled([h.stopKafka?.(), h.stopPostgres?.()]);
  for (const name of h.state.assigned) delete process.env[name];
  try {
    const onDisk = JSON.parse(fs.readFileSync(INFRA_STATE_FILE, 'utf8')) as { pid?: number };
    if (onDisk.pid === h.state.pid) fs.rmSync(INFRA_STATE_FILE, { force: true });
  } catch {
    // no state file: nothing to clean
  }
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) process.stderr.write(`[infra] teardown: ${String(failed.reason)}\n`);
}
