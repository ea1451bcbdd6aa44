import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { estateSuite, postgresOf, report, untilRunning, watchdogOf, within, type EstateProcess } from './support/lifecycle.harness';

/**
 * The embedded PostgreSQL killed under a running `npm start`: the estate used to stay up for good,
 * /healthz ok and /readyz 503. It now stops with exit 1 and one line saying why, so a supervisor
 * restarts it (and the next start recovers PostgreSQL's write-ahead log).
 */
describe('npm start when its PostgreSQL is killed', () => {
  const suite = estateSuite('estate-pg-lost-');
  let estate: EstateProcess | undefined;

  it('exits 1 with a one-line reason and leaves nothing behind', async () => {
    estate = await suite.spawn({ LOG_FORMAT: 'json' });
    await untilRunning(estate);
    // The postmaster: the postgres process whose command line names the data directory (its backends do not).
    const postmasterPid = Number(readFileSync(path.join(suite.dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
    expect(postgresOf(suite.dataDir).map((p) => p.pid)).toContain(postmasterPid);
    const killed = Date.now();
    process.kill(postmasterPid, 'SIGKILL');
    const exited = await Promise.race([estate.exited, new Promise<'running'>((resolve) => setTimeout(() => resolve('running'), 20_000))]);
    report(`postmaster SIGKILLed: npm start exited after ${Date.now() - killed} ms with ${JSON.stringify(exited)}`);
    expect(exited).toEqual({ code: 1, signal: null });
    const fatal = estate.output().split('\n').filter((line) => line.includes('"level":60'));
    expect(fatal).toEqual([expect.stringContaining(`PostgreSQL (pid ${postmasterPid}) exited while the estate was running (SIGKILL); stopping the estate (exit 1)`)]);
    await within(10_000, 'no postgres and no watchdog left', () => postgresOf(suite.dataDir).length === 0 && watchdogOf(suite.dataDir).length === 0);
    expect({ record: existsSync(path.join(suite.dataDir, 'estate.json')), owner: existsSync(path.join(suite.dataDir, 'pg.owner.json')) }).toEqual({ record: false, owner: false });
  }, 180_000);
});
