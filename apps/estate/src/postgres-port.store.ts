import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';

const FILE = 'pg-port';

/**
 * The embedded PostgreSQL keeps the port of its last run when that port is still free: processes
 * that joined the estate (a desktop client's `estate stdio`) hold its database URL and reconnect
 * to it after `npm start` is restarted.
 */
export async function rememberedPostgresPort(dataDir: string): Promise<number | undefined> {
  const file = path.join(dataDir, FILE);
  if (!existsSync(file)) return undefined;
  const port = Number(readFileSync(file, 'utf8').trim());
  return Number.isInteger(port) && port > 0 && port < 65536 && (await portFree(port)) ? port : undefined;
}

export function rememberPostgresPort(dataDir: string, databaseUrl: string): void {
  writeFileSync(path.join(dataDir, FILE), `${new URL(databaseUrl).port}\n`);
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
