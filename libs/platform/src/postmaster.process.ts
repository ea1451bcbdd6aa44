import { spawn } from 'node:child_process';
import type { Logger } from 'pino';
import { withDeadline } from './bounded-stop';

export interface PostmasterOptions {
  /** The `postgres` binary. */
  binary: string;
  dataDir: string;
  port: number;
  /** As root the server runs as the `postgres` user. */
  user?: { uid: number; gid: number };
  logger: Logger;
  /** Called as soon as the process exists, before it is ready: the watchdog must not wait. */
  onSpawn?: (pid: number) => void;
  startTimeoutMs?: number;
  /** Called once when the server exits after it was ready and before `stop` (killed, crashed). */
  onUnexpectedExit?: (reason: string) => void;
}

export interface Postmaster {
  pid: number;
  /** Fast shutdown (SIGINT), then immediate (SIGQUIT), then SIGKILL, each bounded. */
  stop(): Promise<void>;
}

const READY = 'database system is ready to accept connections';
const KEPT_LINES = 12;

type Exit = { code: number | null; signal: NodeJS.Signals | null };

/**
 * Runs the postmaster in its own session, so a terminal's Ctrl-C (sent to our whole process
 * group) does not stop it under services that are still closing: we stop it last. Resolves once
 * it accepts connections; rejects with its own last lines when it exits first (port taken, lock
 * file held, bad permissions).
 */
export async function startPostmaster(options: PostmasterOptions): Promise<Postmaster> {
  const log = options.logger.child({ component: 'postgres' });
  const child = spawn(options.binary, ['-D', options.dataDir, '-p', String(options.port)], {
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { LC_MESSAGES: 'C' },
    ...options.user,
  });
  const recent: string[] = [];
  let stopping = false;
  let ready = false;
  const exited = new Promise<Exit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const started = new Promise<void>((resolve, reject) => {
    child.once('error', (error) => reject(new Error(`could not run PostgreSQL (${options.binary}): ${error.message}`)));
    child.stderr?.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n').filter((l) => l.trim() !== '')) {
        log.debug(line.trim());
        recent.push(line.trim());
        if (recent.length > KEPT_LINES) recent.shift();
        if (line.includes(READY)) resolve();
      }
    });
    void exited.then(({ code, signal }) => {
      if (!ready) reject(new Error(`PostgreSQL exited before it was ready (${signal ?? `code ${code}`}): ${recent.join(' | ') || 'no output'}`));
      else if (!stopping) {
        log.error({ code, signal }, 'PostgreSQL exited while estate was running');
        options.onUnexpectedExit?.(`PostgreSQL (pid ${child.pid}) exited while the estate was running (${signal ?? `code ${code}`})`);
      }
    });
  });
  if (child.pid !== undefined) options.onSpawn?.(child.pid);
  const stop = async (): Promise<void> => {
    stopping = true;
    if (child.exitCode !== null || child.signalCode !== null) return;
    for (const [signal, ms] of [['SIGINT', 5000], ['SIGQUIT', 2000], ['SIGKILL', 1000]] as const) {
      child.kill(signal);
      if ((await withDeadline(exited, ms)) !== 'overran') return;
      log.warn({ pid: child.pid, signal, ms }, `PostgreSQL did not stop within ${ms} ms of ${signal}`);
    }
  };
  const timeoutMs = options.startTimeoutMs ?? 60_000;
  try {
    if ((await withDeadline(started, timeoutMs)) === 'overran') throw new Error(`PostgreSQL was not ready within ${timeoutMs} ms: ${recent.join(' | ') || 'no output'}`);
  } catch (error) {
    await stop();
    throw error;
  }
  ready = true;
  return { pid: child.pid as number, stop };
}
