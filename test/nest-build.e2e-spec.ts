import { execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { TEST_SECRET, waitFor } from './support/estate.harness';
import { createTestDatabase, freePort, kafkaBrokers, randomTopicPrefix, REPO_ROOT } from './support/infra';

/**
 * nest-cli.json as a Nest engineer uses it: `nest build <app>` emits an entry point that runs on
 * its own, and `nest start <app>` builds and runs one. Each build goes to a folder of its own
 * (a tsconfig passed with --path names it), so the shared dist/ other tests run from is never
 * rewritten under them; the folder sits inside the repository so the build finds node_modules.
 */
const NEST = path.join(REPO_ROOT, 'node_modules/@nestjs/cli/bin/nest.js');

function scratchBuild(app: string): { tsconfig: string; out: string } {
  const dir = path.join(REPO_ROOT, 'dist', `.nest-build-${randomUUID()}`);
  mkdirSync(dir, { recursive: true });
  const tsconfig = path.join(dir, 'tsconfig.json');
  const extended = path.relative(dir, path.join(REPO_ROOT, 'apps', app, 'tsconfig.app.json'));
  writeFileSync(tsconfig, JSON.stringify({ extends: extended, compilerOptions: { outDir: './out' } }));
  // Nest joins --path to its working directory, so it must be relative.
  return { tsconfig: path.relative(REPO_ROOT, tsconfig), out: path.join(dir, 'out') };
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? filesUnder(full) : [full];
  });
}

/** Processes whose command line names `dir` (Linux /proc). */
async function runningFrom(dir: string): Promise<string[]> {
  await new Promise((resolve) => setTimeout(resolve, 500));
  return readdirSync('/proc').filter((pid) => /^\d+$/.test(pid)).flatMap((pid) => {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
      return cmdline.includes(dir) ? [`${pid}: ${cmdline}`] : [];
    } catch {
      return [];
    }
  });
}

/** Runs `node args` with a readiness probe; stops it with SIGTERM and reports its exit code and output. */
function run(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, args, { cwd: REPO_ROOT, env: { ...process.env, LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    output: () => output,
    ready: (url: string) => waitFor(async () => ((await fetch(`${url}/healthz`)).ok ? true : undefined), `${url}/healthz (output: ${output.slice(-2000)})`, 60000),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

describe('nest build and nest start (nest-cli.json, swc builder)', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  let env: Record<string, string>;

  beforeAll(async () => {
    const db = await createTestDatabase();
    cleanups.push(db.drop);
    env = { DATABASE_URL: db.url, KAFKA_BROKERS: kafkaBrokers().join(','), ESTATE_TOPIC_PREFIX: randomTopicPrefix(), ESTATE_JWT_SECRET: TEST_SECRET };
  });
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('nest build registry emits a runnable entry point with the @estate/* aliases resolved and no specs', async () => {
    const build = scratchBuild('registry');
    cleanups.push(() => rmSync(path.dirname(build.out), { recursive: true, force: true }));
    await promisify(execFile)(process.execPath, [NEST, 'build', 'registry', '--path', build.tsconfig], { cwd: REPO_ROOT });

    const entry = path.join(build.out, 'apps/registry/src/main.js');
    expect(existsSync(entry)).toBe(true);
    const emitted = filesUnder(build.out).filter((file) => file.endsWith('.js'));
    expect(emitted.filter((file) => /\.(spec|int-spec|e2e-spec)\.js$/.test(file))).toEqual([]);
    expect(emitted.filter((file) => /require\("@estate\//.test(readFileSync(file, 'utf8'))).map((file) => path.relative(build.out, file))).toEqual([]);

    const port = await freePort();
    const registry = run([entry], { ...env, ESTATE_REGISTRY_PORT: String(port) });
    cleanups.push(async () => void (await registry.stop()));
    await registry.ready(`http://127.0.0.1:${port}`);
    const tools = await fetch(`http://127.0.0.1:${port}/v1/tools`);
    expect(tools.status).toBe(401);
    expect(await registry.stop()).toBe(0);
  }, 120000);

  it('nest start discovery builds it and runs it, and passes SIGTERM on: a clean stop, nothing left running', async () => {
    const build = scratchBuild('discovery');
    cleanups.push(() => rmSync(path.dirname(build.out), { recursive: true, force: true }));
    const port = await freePort();
    // --no-shell: through the default shell, SIGTERM would stop the shell and leave the service running.
    const discovery = run([NEST, 'start', 'discovery', '--no-shell', '--path', build.tsconfig], {
      ...env, ESTATE_DISCOVERY_PORT: String(port), ESTATE_DISCOVERY_GROUP: `nest-start-${randomUUID()}`,
    });
    cleanups.push(async () => void (await discovery.stop()));
    await discovery.ready(`http://127.0.0.1:${port}`);
    expect(existsSync(path.join(build.out, 'apps/discovery/src/main.js'))).toBe(true);
    expect(await discovery.stop()).toBe(0);
    expect(discovery.output()).not.toMatch(/"level":(50|60)/);
    // The service nest start ran stopped with it: nothing is left running from the build folder.
    expect(await runningFrom(build.out)).toEqual([]);
  }, 120000);
});
