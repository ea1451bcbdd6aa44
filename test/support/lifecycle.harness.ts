import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ADMIN, TEST_SECRET, token, waitFor } from './estate.harness';
import { freePort, REPO_ROOT } from './infra';

/** `npm start`'s entry point as a user runs it: its own process group, like a terminal job. */
export interface EstateProcess {
  child: ChildProcess;
  pid: number;
  registryUrl: string;
  discoveryUrl: string;
  auditUrl: string;
  mcpUrl: string;
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * A suite's own data directory and the estates it starts there: after the suite each one still
 * running is killed with its process group, and the directory is removed.
 */
export function estateSuite(prefix: string): { readonly dataDir: string; spawn(env?: Record<string, string>): Promise<EstateProcess> } {
  let dataDir = '';
  const started: EstateProcess[] = [];
  beforeAll(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), prefix));
  });
  afterAll(async () => {
    for (const estate of started) if (estate.child.exitCode === null && estate.child.signalCode === null) await signalGroup(estate, 'SIGKILL', 5000);
    rmSync(dataDir, { recursive: true, force: true });
  });
  return {
    get dataDir() {
      return dataDir;
    },
    spawn: async (env = {}) => {
      const estate = await spawnEstate(dataDir, env);
      started.push(estate);
      return estate;
    },
  };
}

export async function spawnEstate(dataDir: string, env: Record<string, string> = {}): Promise<EstateProcess> {
  const ports = { registry: await freePort(), discovery: await freePort(), audit: await freePort(), edge: await freePort() };
  const child = spawn(process.execPath, [path.join(REPO_ROOT, 'dist/apps/estate/src/main.js')], {
    cwd: REPO_ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      ESTATE_DATA_DIR: dataDir,
      ESTATE_DEMO: '0',
      ESTATE_JWT_SECRET: TEST_SECRET,
      ESTATE_REGISTRY_PORT: String(ports.registry),
      ESTATE_DISCOVERY_PORT: String(ports.discovery),
      ESTATE_AUDIT_PORT: String(ports.audit),
      ESTATE_EDGE_PORT: String(ports.edge),
      ESTATE_CONSOLE_PORT: '0',
      DATABASE_URL: '',
      KAFKA_BROKERS: '',
      LOG_LEVEL: 'info',
      ...env,
    },
  });
  let output = '';
  child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    pid: child.pid as number,
    registryUrl: `http://127.0.0.1:${ports.registry}`,
    discoveryUrl: `http://127.0.0.1:${ports.discovery}`,
    auditUrl: `http://127.0.0.1:${ports.audit}`,
    mcpUrl: `http://127.0.0.1:${ports.edge}/mcp`,
    output: () => output,
    exited,
  };
}

/** Waits for the banner; fails early with the process's output when it exits instead. */
export async function untilRunning(estate: EstateProcess, timeoutMs = 90_000): Promise<void> {
  await waitFor(
    async () => {
      if (estate.output().includes('Estate is running')) return true;
      if (estate.child.exitCode !== null || estate.child.signalCode !== null) throw new Error(`exited before its banner:\n${estate.output()}`);
      return undefined;
    },
    'npm start to print its banner',
    timeoutMs,
  );
}

/** The registry answers a real query (it reads PostgreSQL). */
export async function serves(estate: EstateProcess): Promise<number> {
  const response = await fetch(`${estate.registryUrl}/v1/tools`, { headers: { authorization: `Bearer ${await token(ADMIN)}` } });
  return response.status;
}

/** Sends `signal` to the whole process group, as a terminal does, and measures how long until exit. */
export async function signalGroup(estate: EstateProcess, signal: NodeJS.Signals, timeoutMs = 20_000) {
  const started = Date.now();
  process.kill(-estate.pid, signal);
  const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), timeoutMs).unref());
  const result = await Promise.race([estate.exited, timeout]);
  return { result, ms: Date.now() - started };
}

/** Processes whose command line mentions `needle` (Linux /proc), e.g. a data directory. */
export function processesMentioning(needle: string): Array<{ pid: number; cmdline: string }> {
  const found: Array<{ pid: number; cmdline: string }> = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ');
      const state = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]?.[0];
      if (cmdline.includes(needle) && state !== 'Z') found.push({ pid: Number(entry), cmdline });
    } catch {
      // the process ended while we looked
    }
  }
  return found;
}

export const postgresOf = (dataDir: string) => processesMentioning(`-D ${path.join(dataDir, 'pg')}`).filter((p) => p.cmdline.includes('postgres'));
export const watchdogOf = (dataDir: string) => processesMentioning(path.join(dataDir, 'pg')).filter((p) => p.cmdline.includes('estate-postgres-watchdog'));

/** Polls until `check` holds, returning how long it took, or throws after `timeoutMs`. */
export async function within(timeoutMs: number, what: string, check: () => boolean): Promise<number> {
  const started = Date.now();
  await waitFor(async () => (check() ? true : undefined), what, timeoutMs);
  return Date.now() - started;
}

/** Measured figures go to stderr so a run shows them. */
export function report(line: string): void {
  process.stderr.write(`[lifecycle] ${line}\n`);
}
