import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ADMIN, http, token, waitFor } from './support/estate.harness';
import { postgresOf, signalGroup, spawnEstate, untilRunning, type EstateProcess } from './support/lifecycle.harness';
import { startPrivateKafka, type PrivateKafka } from './support/private-kafka';

/**
 * Ctrl-C while the broker is away: every part stops within its own bounds (no part overruns and is
 * abandoned), and what was published during the outage reaches the catalog after the next start.
 */
describe('npm start on Kafka, stopped while the broker is away (a private broker)', () => {
  let kafka: PrivateKafka;
  let dataDir: string;
  let estate: EstateProcess | undefined;
  const prefix = `outage-stop-${Date.now()}-`;

  const tool = (n: number) => ({
    name: `ops.t${n}`, version: '1.0.0', title: `Tool ${n}`, description: 'A tool published around an outage.',
    inputSchema: { type: 'object' }, sideEffect: 'read', requiredScopes: [], dataClassification: 'internal', tenants: [], owner: 'ops',
    upstream: { server: 'ops', tool: `t${n}` },
  });

  beforeAll(async () => {
    kafka = await startPrivateKafka();
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'estate-outage-stop-'));
  }, 180_000);

  afterAll(async () => {
    if (estate && estate.child.exitCode === null && estate.child.signalCode === null) await signalGroup(estate, 'SIGKILL', 5000);
    await waitFor(async () => (postgresOf(dataDir).length === 0 ? true : undefined), 'no postgres left', 15_000).catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
    await kafka?.stop();
  }, 60_000);

  it('stops every part within its bounds, then delivers what was published during the outage after the next start', async () => {
    const admin = await token(ADMIN);
    const env = { KAFKA_BROKERS: kafka.brokers.join(','), ESTATE_TOPIC_PREFIX: prefix };
    estate = await spawnEstate(dataDir, env);
    await untilRunning(estate, 120_000);
    expect((await http('POST', `${estate.registryUrl}/v1/servers`, admin, { name: 'ops', url: 'http://127.0.0.1:1/mcp', owner: 'ops' })).status).toBe(201);
    expect((await http('POST', `${estate.registryUrl}/v1/tools`, admin, tool(0))).status).toBe(201);

    await kafka.kill();
    // Only PostgreSQL is needed to accept a publish.
    for (const n of [1, 2]) expect((await http('POST', `${estate.registryUrl}/v1/tools`, admin, tool(n))).status).toBe(201);
    const stop = await signalGroup(estate, 'SIGINT');
    process.stderr.write(`[outage-stop] SIGINT with the broker away: exited after ${stop.ms} ms\n`);
    expect(stop.result).toEqual({ code: 0, signal: null });
    // The estate's own deadline (8 s) was not what ended it: no part overran its bounds.
    expect(estate.output()).not.toMatch(/did not stop within/);
    expect(postgresOf(dataDir)).toEqual([]);

    await kafka.start();
    estate = await spawnEstate(dataDir, env);
    await untilRunning(estate, 120_000);
    const started = Date.now();
    const discoveryUrl = estate.discoveryUrl;
    await waitFor(async () => {
      const tools = ((await http('GET', `${discoveryUrl}/v1/catalog`, admin)).body.tools ?? []) as Array<{ name: string }>;
      const names = tools.map((t) => t.name).sort();
      return JSON.stringify(names) === JSON.stringify(['ops.t0', 'ops.t1', 'ops.t2']) ? true : undefined;
    }, 'the catalog to hold every publish, those made during the outage included', 60_000);
    process.stderr.write(`[outage-stop] catalog whole ${Date.now() - started} ms after the restart's banner\n`);
    expect((await signalGroup(estate, 'SIGINT')).result).toEqual({ code: 0, signal: null });
  }, 400_000);
});
