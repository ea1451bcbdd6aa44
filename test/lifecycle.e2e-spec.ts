import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { startFaultProxy } from '../examples/bank/bank.faults';
import { startBankServer } from '../examples/bank/bank.server';
import { bankSpecs } from '../examples/bank/bank.specs';
import { ADMIN, connect, http, token, waitFor } from './support/estate.harness';
import { REPO_ROOT } from './support/infra';
import {
  postgresOf, report, serves, signalGroup, spawnEstate, untilRunning, watchdogOf, within, type EstateProcess,
} from './support/lifecycle.harness';

/**
 * `npm start` (dist/apps/estate/src/main.js) as users run it: a crash must not leave PostgreSQL
 * behind, the next start must recover on its own, and one Ctrl-C must stop every mode.
 */
describe('npm start lifecycle with embedded PostgreSQL', () => {
  let dataDir: string;
  const started: EstateProcess[] = [];

  const start = async (env: Record<string, string> = {}) => {
    const estate = await spawnEstate(dataDir, env);
    started.push(estate);
    return estate;
  };

  beforeAll(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'estate-lifecycle-'));
  });

  afterAll(async () => {
    for (const estate of started) if (estate.child.exitCode === null && estate.child.signalCode === null) await signalGroup(estate, 'SIGKILL', 5000);
    await within(15_000, 'no postgres left after the suite', () => postgresOf(dataDir).length === 0).catch(() => {
      for (const { pid } of postgresOf(dataDir)) process.kill(pid, 'SIGQUIT');
    });
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('SIGKILL of the node process leaves no PostgreSQL running; the next start says what it recovered and serves', async () => {
    const first = await start();
    await untilRunning(first);
    expect(postgresOf(dataDir)).toHaveLength(1);
    process.kill(first.pid, 'SIGKILL');
    const gone = await within(5000, 'the orphaned postgres to stop', () => postgresOf(dataDir).length === 0);
    report(`SIGKILL of node: its PostgreSQL was gone ${gone} ms later`);

    const second = await start();
    await untilRunning(second);
    expect(second.output()).toContain(`recovered: a previous estate (pid ${first.pid}) ended without a clean stop`);
    expect(await serves(second)).toBe(200);
    const stop = await signalGroup(second, 'SIGINT');
    expect(stop.result).toEqual({ code: 0, signal: null });
  }, 180_000);

  it('after a crash that also took the watchdog, the next start stops the leftover server and serves', async () => {
    const first = await start();
    await untilRunning(first);
    const [leftover] = postgresOf(dataDir);
    for (const { pid } of watchdogOf(dataDir)) process.kill(pid, 'SIGKILL');
    process.kill(first.pid, 'SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(postgresOf(dataDir).map((p) => p.pid)).toEqual([leftover.pid]);

    const second = await start();
    await untilRunning(second);
    expect(second.output()).toContain(`recovered: stopped the PostgreSQL server (pid ${leftover.pid}) that a previous estate (pid ${first.pid}) left running`);
    expect(postgresOf(dataDir).map((p) => p.pid)).not.toContain(leftover.pid);
    expect(await serves(second)).toBe(200);
    await signalGroup(second, 'SIGINT');
  }, 180_000);

  it('refuses a data directory that a live estate owns, naming its pid, and leaves that estate serving', async () => {
    const owner = await start();
    await untilRunning(owner);
    const intruder = await start();
    const { code } = await intruder.exited;
    expect(code).toBe(1);
    expect(intruder.output()).toContain(`is in use by a running estate (pid ${owner.pid})`);
    expect(await serves(owner)).toBe(200);
    await signalGroup(owner, 'SIGINT');
  }, 180_000);

  it('of two starts racing on one data directory, one serves and the other refuses, naming it', async () => {
    const [a, b] = await Promise.all([start(), start()]);
    const loser = await Promise.race([a.exited.then(() => a), b.exited.then(() => b)]);
    const winner = loser === a ? b : a;
    expect(loser.child.exitCode).toBe(1);
    expect(loser.output()).toContain(`is in use by a running estate (pid ${winner.pid})`);
    await untilRunning(winner);
    expect(await serves(winner)).toBe(200);
    expect(postgresOf(dataDir)).toHaveLength(1);
    await signalGroup(winner, 'SIGINT');
  }, 180_000);

  it('one SIGINT to the process group stops everything within seconds with exit code 0', async () => {
    const estate = await start({ ESTATE_DEMO: '1', BANK_PORT: '0' });
    await untilRunning(estate);
    expect(await serves(estate)).toBe(200);
    const stop = await signalGroup(estate, 'SIGINT');
    report(`SIGINT to the group (embedded, in-process bus): exited after ${stop.ms} ms`);
    expect(stop.result).toEqual({ code: 0, signal: null });
    expect(stop.ms).toBeLessThan(5000);
    expect(postgresOf(dataDir)).toEqual([]);
    await within(3000, 'the watchdog to exit', () => watchdogOf(dataDir).length === 0);
    expect(estate.output()).toContain('"msg":"stopped"');
  }, 180_000);

  it('one SIGINT stops it within seconds while a tool call waits on a slow upstream', async () => {
    const bank = await startBankServer({ port: 0 });
    const proxy = await startFaultProxy(bank.url);
    // Its own data directory: the demo run above registered the bank with another URL.
    const ownDir = mkdtempSync(path.join(os.tmpdir(), 'estate-lifecycle-slow-'));
    const estate = await spawnEstate(ownDir);
    try {
      await untilRunning(estate);
      const admin = await token(ADMIN);
      expect((await http('POST', `${estate.registryUrl}/v1/servers`, admin, { name: 'bank', url: proxy.url, owner: 'payments-team' })).status).toBeLessThan(300);
      expect((await http('POST', `${estate.registryUrl}/v1/tools`, admin, bankSpecs('bank')[0])).status).toBe(201);
      const session = await connect(estate.mcpUrl, await token({ sub: 'agent', scope: 'bank:read', clearance: 'internal' }));
      await waitFor(async () => ((await session.client.listTools()).tools.some((t) => t.name === 'bank.lookup') ? true : undefined), 'bank.lookup to be listed', 30_000);
      proxy.delay('lookup', 15_000);
      const call = session.client.callTool({ name: 'bank.lookup', arguments: { reference: 'PMT-771' } }).catch((error: unknown) => error);
      await new Promise((resolve) => setTimeout(resolve, 1000));

      const stop = await signalGroup(estate, 'SIGINT');
      report(`SIGINT to the group with a tool call held 15 s upstream: exited after ${stop.ms} ms`);
      expect(stop.result).toEqual({ code: 0, signal: null });
      expect(stop.ms).toBeLessThan(6000);
      expect(postgresOf(ownDir)).toEqual([]);
      await session.close().catch(() => undefined);
      await call;
    } finally {
      if (estate.child.exitCode === null && estate.child.signalCode === null) await signalGroup(estate, 'SIGINT');
      proxy.clear();
      await proxy.close();
      await bank.close();
      rmSync(ownDir, { recursive: true, force: true });
    }
  }, 180_000);

  it('SIGTERM stops it the same way', async () => {
    const estate = await start();
    await untilRunning(estate);
    const stop = await signalGroup(estate, 'SIGTERM');
    report(`SIGTERM to the group: exited after ${stop.ms} ms`);
    expect(stop.result).toEqual({ code: 0, signal: null });
    expect(stop.ms).toBeLessThan(5000);
    expect(postgresOf(dataDir)).toEqual([]);
  }, 180_000);

  it('a SIGTERM during the start, before the banner, stops it cleanly once it is up, exit code 0', async () => {
    const estate = await start();
    await waitFor(async () => {
      if (estate.output().includes('registry listening')) return true;
      if (estate.child.exitCode !== null || estate.child.signalCode !== null) throw new Error(`exited before the registry listened:\n${estate.output()}`);
      return undefined;
    }, 'the registry to listen', 90_000);
    expect(estate.output()).not.toContain('Estate is running');
    const stop = await signalGroup(estate, 'SIGTERM', 60_000);
    report(`SIGTERM during the start: exited after ${stop.ms} ms`);
    expect(stop.result).toEqual({ code: 0, signal: null });
    expect(postgresOf(dataDir)).toEqual([]);
  }, 180_000);

  it('a Ctrl-C while the modules still load is held too: it stops once up, exit code 0', async () => {
    const estate = await start();
    // The modules take about two seconds to load; the signal lands well inside that.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const stop = await signalGroup(estate, 'SIGINT', 90_000);
    report(`SIGINT while loading: exited after ${stop.ms} ms`);
    expect(stop.result).toEqual({ code: 0, signal: null });
    expect(estate.output()).toContain('registry listening');
    expect(postgresOf(dataDir)).toEqual([]);
  }, 180_000);

  it('creating a fresh cluster leaves the process its own exit code (a failed first start exits 1, not 0)', async () => {
    // The package that creates the cluster hooks beforeExit with an exit(0): a first `npm start`
    // that failed (a port in use) ended with 0 once its event loop ran dry. Here: create, stop, and
    // let the loop run dry with exit code 3 set, as the fatal path sets 1.
    const fresh = path.join(os.tmpdir(), `estate-lifecycle-fresh-${randomBytes(6).toString('hex')}`);
    const script = `
      const { startEmbeddedPostgres } = require(${JSON.stringify(path.join(REPO_ROOT, 'dist/libs/platform/src/embedded-postgres.js'))});
      const { createLogger } = require(${JSON.stringify(path.join(REPO_ROOT, 'dist/libs/platform/src/logger.js'))});
      startEmbeddedPostgres(${JSON.stringify(fresh)}, createLogger('fresh', 'error')).then((db) => db.stop()).then(() => { process.exitCode = 3; });
    `;
    try {
      const child = spawn(process.execPath, ['-e', script], { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'pipe'], env: { PATH: process.env.PATH ?? '' } });
      let errors = '';
      child.stderr?.on('data', (chunk: Buffer) => (errors += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.once('exit', (exitCode) => resolve(exitCode)));
      expect({ code, errors }).toEqual({ code: 3, errors: '' });
      expect(postgresOf(fresh)).toEqual([]);
    } finally {
      rmSync(fresh, { recursive: true, force: true });
    }
  }, 180_000);

  it('a boot failure logs its reason, never "undefined", and leaves nothing running', async () => {
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as { port: number };
    // PostgreSQL starts if it can bind any loopback address: take ::1 too where there is one.
    const taken6: Server = createServer();
    await new Promise<void>((resolve) => taken6.once('error', () => resolve()).listen(port, '::1', resolve));
    try {
      const estate = await start({ ESTATE_PG_PORT: String(port) });
      const { code } = await estate.exited;
      expect(code).toBe(1);
      const fatal = estate.output().split('\n').find((line) => line.includes('"level":60')) ?? '';
      expect(fatal).toContain('PostgreSQL exited before it was ready');
      expect(fatal).toMatch(/could not (bind|create)|Address already in use/);
      expect(fatal).not.toContain('"msg":"undefined"');
      await within(5000, 'nothing left running', () => postgresOf(dataDir).length === 0 && watchdogOf(dataDir).length === 0);
    } finally {
      taken.close();
      taken6.close();
    }
  }, 180_000);
});

describe('npm start lifecycle on Kafka', () => {
  let dataDir: string;
  let estate: EstateProcess | undefined;

  beforeAll(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'estate-lifecycle-kafka-'));
  });

  afterAll(async () => {
    if (estate && estate.child.exitCode === null && estate.child.signalCode === null) await signalGroup(estate, 'SIGKILL', 5000);
    await within(15_000, 'no postgres left', () => postgresOf(dataDir).length === 0).catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('one SIGINT to the process group ends the process within seconds, with an SSE subscriber and an MCP session open', async () => {
    const brokers = process.env.KAFKA_BROKERS;
    if (!brokers) throw new Error('KAFKA_BROKERS must be set (global setup provides it)');
    estate = await spawnEstate(dataDir, {
      KAFKA_BROKERS: brokers,
      ESTATE_TOPIC_PREFIX: `lifecycle-${randomBytes(4).toString('hex')}-`,
      ESTATE_DEMO: '1',
      BANK_PORT: '0',
    });
    await untilRunning(estate, 120_000);
    expect(estate.output()).toContain('bus: Kafka (KAFKA_BROKERS)');
    expect(await serves(estate)).toBe(200);
    // What a stop has to end: an audit SSE subscriber and an MCP session with its GET stream.
    const sse = await fetch(`${estate.auditUrl}/v1/events/stream`, { headers: { authorization: `Bearer ${await token(ADMIN)}` } });
    expect(sse.status).toBe(200);
    const session = await connect(estate.mcpUrl, await token(ADMIN));
    const stop = await signalGroup(estate, 'SIGINT');
    await session.close().catch(() => undefined);
    await sse.body?.cancel().catch(() => undefined);
    report(`SIGINT to the group (Kafka mode): exited after ${stop.ms} ms`);
    expect(stop.result).toEqual({ code: 0, signal: null });
    expect(stop.ms).toBeLessThan(5000);
    expect(postgresOf(dataDir)).toEqual([]);
  }, 180_000);
});

describe('stopOnSignals (every entry point stops through it)', () => {
  /** A process whose stop never finishes, stopped through the built platform library. */
  const hangingService = (deadlineMs: number) =>
    spawn(
      process.execPath,
      [
        '-e',
        `const { createLogger, stopOnSignals } = require(${JSON.stringify(path.join(REPO_ROOT, 'dist/libs/platform/src/index.js'))});
         stopOnSignals(createLogger('hang'), () => new Promise(() => undefined), ${deadlineMs});
         setInterval(() => undefined, 1000);
         process.stdout.write('ready\\n');`,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );

  const run = async (deadlineMs: number, signals: NodeJS.Signals[]) => {
    const child = hangingService(deadlineMs);
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await within(10_000, 'the service to start', () => output.includes('ready'));
    const started = Date.now();
    for (const signal of signals) {
      child.kill(signal);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const code = await exited;
    return { code, ms: Date.now() - started, output };
  };

  it('forces a stop that overruns its deadline, with a log line, exit code 1', async () => {
    const { code, ms, output } = await run(500, ['SIGTERM']);
    expect(code).toBe(1);
    expect(ms).toBeGreaterThanOrEqual(450);
    expect(ms).toBeLessThan(3000);
    expect(output).toContain('stop overran 500 ms; exiting without waiting for it');
  });

  it('exits at once on a second signal', async () => {
    const { code, ms, output } = await run(60_000, ['SIGINT', 'SIGINT']);
    expect(code).toBe(1);
    expect(ms).toBeLessThan(3000);
    expect(output).toContain('second signal while stopping; exiting now');
  });
});
