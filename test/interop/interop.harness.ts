import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { createLogger } from '@estate/platform';
import { composeEstate } from '../../apps/estate/src/estate.composition';
import { testEstateEnv } from '../support/estate.stack';
import { createTestDatabase, REPO_ROOT } from '../support/infra';

export interface RunningEstate {
  registryUrl: string;
  auditUrl: string;
  mcpUrl: string;
  /** How many tools the edge's catalog replica holds (to wait for a publish to arrive). */
  edgeTools(): number;
  stop(): Promise<void>;
}

/**
 * The four services in-process on the provisioned Kafka and a fresh PostgreSQL database, with
 * random topic and group names. `edgeEnv` overrides the edge's environment only (the registry
 * and audit keep requiring JWTs, so admin calls stay authenticated even when the edge is open).
 */
export async function startEstate(edgeEnv: Record<string, string> = {}): Promise<RunningEstate> {
  const logger = createLogger('interop', 'error');
  const db = await createTestDatabase();
  try {
    const estate = await composeEstate({
      env: testEstateEnv(), databaseUrl: db.url, logger, services: ['registry', 'discovery', 'audit', 'edge'], overrides: { edge: edgeEnv },
    });
    const { registry, audit, edge } = estate;
    if (!registry || !audit || !edge) throw new Error('the interop estate started without one of its services');
    const stop = async () => {
      await estate.stop().catch(() => undefined);
      await db.drop().catch(() => undefined);
    };
    return { registryUrl: registry.url, auditUrl: audit.url, mcpUrl: edge.mcpUrl, edgeTools: () => edge.replica.size, stop };
  } catch (error) {
    await db.drop().catch(() => undefined);
    throw error;
  }
}

/** One JSON document per stdout line; stderr is kept for failure messages. */
export interface ScriptRun {
  lines: Array<Record<string, unknown>>;
  stderr: () => string;
  /** Resolves with the first line whose `event` matches. */
  waitFor(event: string, timeoutMs?: number): Promise<Record<string, unknown>>;
  exited: Promise<number | null>;
  kill(): void;
}

/** Runs a client script (python or node) that reports on stdout, one JSON object per line. */
export function runScript(command: string, args: string[], env: Record<string, string>): ScriptRun {
  const spawnedAt = Date.now();
  const child = spawn(command, args, { cwd: REPO_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: Array<Record<string, unknown>> = [];
  const waiters: Array<() => void> = [];
  let stderr = '';
  let partial = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  child.stdout.on('data', (c: Buffer) => {
    partial += c.toString();
    const complete = partial.split('\n');
    partial = complete.pop() ?? '';
    for (const line of complete.filter((l) => l.trim())) {
      try {
        // `ms`: when the line arrived, relative to the spawn (diagnoses a slow client).
        lines.push({ ...(JSON.parse(line) as Record<string, unknown>), ms: Date.now() - spawnedAt });
      } catch {
        stderr += `[unparsed stdout] ${line}\n`;
      }
    }
    waiters.splice(0).forEach((wake) => wake());
  });
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => {
    waiters.splice(0).forEach((wake) => wake());
    resolve(code);
  }));
  let done = false;
  void exited.then(() => (done = true));
  const describe = () => `${path.basename(args[0] ?? command)}: lines=${JSON.stringify(lines)} stderr=${stderr.slice(-2000)}`;
  return {
    lines,
    stderr: () => stderr,
    exited,
    kill: () => void child.kill('SIGTERM'),
    waitFor: (event, timeoutMs = 90000) => new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no "${event}" from ${describe()}`)), timeoutMs);
      const check = () => {
        const found = lines.find((l) => l.event === event);
        if (found) {
          clearTimeout(timer);
          return resolve(found);
        }
        const failed = lines.find((l) => l.event === 'error');
        if (failed || done) {
          clearTimeout(timer);
          return reject(new Error(`waiting for "${event}": ${describe()}`));
        }
        waiters.push(check);
      };
      check();
    }),
  };
}

/** The interpreter of the venv `npm run setup:interop` builds, or $ESTATE_PYTHON; never skipped. */
export function pythonWithMcp(): string {
  const candidate = process.env.ESTATE_PYTHON || path.join(REPO_ROOT, 'infra', 'python', '.venv', 'bin', 'python');
  const hint = 'run `npm run setup:interop` (creates infra/python/.venv with the pinned `mcp` package) or set ESTATE_PYTHON';
  if (!existsSync(candidate)) throw new Error(`Python for the interop tests not found at ${candidate}: ${hint}`);
  try {
    execFileSync(candidate, ['-c', 'import mcp.client.streamable_http, mcp.client.session'], { stdio: 'pipe' });
  } catch (error) {
    throw new Error(`${candidate} cannot import the Python MCP SDK (${String(error).split('\n')[0]}): ${hint}`);
  }
  return candidate;
}

/** A Node 22 binary (the conformance suite needs it): $ESTATE_NODE22, or the one infra/node22/fetch.sh cached. */
export function node22(): string {
  const script = path.join(REPO_ROOT, 'infra', 'node22', 'fetch.sh');
  try {
    return execFileSync(script, [], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ESTATE_NODE22_OFFLINE: '1' } }).toString().trim();
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString() ?? '';
    throw new Error(`Node 22 for the conformance suite is not available (${stderr.trim() || String(error)}): run \`npm run setup:interop\` or set ESTATE_NODE22`);
  }
}
