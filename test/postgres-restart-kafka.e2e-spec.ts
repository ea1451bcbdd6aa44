import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ADMIN, http, token, waitFor } from './support/estate.harness';
import { startEstateServices, type EstateServices } from './support/estate.stack';
import { freePort } from './support/infra';
import { startPrivatePostgres, type PrivatePostgres } from './support/private-postgres';
import { PublishLedger } from './support/publish.ledger';

/**
 * What survives what, the other half: PostgreSQL (a private one this test stops and starts, same
 * data, same port) goes away under a steady publisher while the services run on the shared
 * broker. Publishes are refused as unavailable while it is gone, the services come back by
 * themselves, and every accepted publish ends up everywhere exactly once, in order.
 */
describe('PostgreSQL restarted under a steady publisher, on Kafka', () => {
  let dir: string;
  let pgPort: number;
  let pg: PrivatePostgres;
  let stack: EstateServices;
  let ledger: PublishLedger;
  let admin: string;
  const figures: Record<string, number> = {};

  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const startPostgres = async () => (pg = await startPrivatePostgres(path.join(dir, 'pg'), pgPort));

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'estate-pg-restart-'));
    pgPort = await freePort();
    await startPostgres();
    stack = await startEstateServices({ name: 'pg-restart', audit: true, databaseUrl: pg.url, env: { ESTATE_EDGE_GROUP: `pg-restart-edge-${Date.now()}` } });
    admin = await token(ADMIN);
    ledger = new PublishLedger({ stack, edge: await stack.startEdge(), admin, server: 'pgr', retryUnavailable: true });
    expect((await http('POST', `${stack.registryUrl}/v1/servers`, admin, { name: 'pgr', url: 'http://127.0.0.1:1/mcp', owner: 'ops' })).status).toBe(201);
  }, 90_000);

  afterAll(async () => {
    await stack?.stop();
    await pg?.stop().catch(() => undefined);
    if (dir) await rm(dir, { recursive: true, force: true });
    process.stderr.write(`[durability] PostgreSQL restart on Kafka (ms): ${JSON.stringify({ ...figures, ...ledger?.figures })}\n`);
  }, 60_000);

  /** Each service answers its reads with 200 and calls itself ready: what an operator would look at. */
  async function answersNormally(url: string, read: string): Promise<true | undefined> {
    const [answer, ready] = await Promise.all([http('GET', `${url}${read}`, admin), fetch(`${url}/readyz`)]);
    return answer.status === 200 && ready.status === 200 ? true : undefined;
  }

  /** Reads discovery's catalog and the audit trail every 200 ms until `done`; returns every answer that was not 200. */
  async function readSteadily(done: () => boolean): Promise<Array<{ service: string; status: number; retryAfter: string | null }>> {
    const odd: Array<{ service: string; status: number; retryAfter: string | null }> = [];
    const reads = { discovery: `${stack.discoveryUrl}/v1/catalog`, audit: `${stack.auditUrl}/v1/audit?limit=5` };
    while (!done()) {
      for (const [service, url] of Object.entries(reads)) {
        const answer = await fetch(url, { headers: { authorization: `Bearer ${admin}` } });
        await answer.arrayBuffer();
        if (answer.status !== 200) odd.push({ service, status: answer.status, retryAfter: answer.headers.get('retry-after') });
      }
      await sleep(200);
    }
    return odd;
  }

  it('refuses publishes and reads with 503 and Retry-After while it is down, reconnects without a restart and loses nothing', async () => {
    let published = false;
    const publishing = ledger.publishFor(18_000, ['a', 'b', 'c']).finally(() => (published = true));
    const reading = readSteadily(() => published);
    // An answer the publisher may not retry (a 500) fails the test at once, whatever it waits for.
    const unlessPublisherFails = <T>(wait: Promise<T>) => Promise.race([wait, publishing.then(() => new Promise<never>(() => undefined))]);
    await sleep(4_000);
    const stopping = Date.now();
    await pg.stop();
    const down = Date.now();
    figures['postgres stop'] = down - stopping;
    await sleep(4_000);
    const refusedWhileDown = ledger.refusals.length;
    const acceptedBeforeBack = ledger.published.length;
    const starting = Date.now();
    await startPostgres();
    const back = Date.now();
    figures['postgres down'] = back - down;
    figures['postgres start'] = back - starting;

    const services = { registry: [stack.registryUrl, '/v1/tools'], discovery: [stack.discoveryUrl, '/v1/catalog'], audit: [stack.auditUrl!, '/v1/audit?limit=5'] } as const;
    await unlessPublisherFails(Promise.all(Object.entries(services).map(async ([service, [url, read]]) => {
      await waitFor(() => answersNormally(url, read), `${service} to answer normally after PostgreSQL came back`, 30_000);
      figures[`${service} answers normally`] = Date.now() - back;
    })));
    // Whole again: the publish held up by the outage, and all before it, everywhere.
    await unlessPublisherFails(waitFor(async () => (ledger.published.length > acceptedBeforeBack ? true : undefined), 'the refused publish to be accepted on a retry', 30_000));
    figures['refused publish accepted'] = Date.now() - back;
    await unlessPublisherFails(ledger.untilWhole('whole after postgres is back', back, acceptedBeforeBack + 1));
    await publishing;
    const oddReads = await reading;
    await ledger.expectRecovered('publishing ended', Date.now());
    await ledger.expectOrderKept();

    // The outage was seen by the publisher, and only as "unavailable, try again": never a 500.
    expect(refusedWhileDown).toBeGreaterThan(0);
    for (const refusal of ledger.refusals) expect(refusal).toMatchObject({ status: 503, retryAfter: expect.stringMatching(/^\d+$/), error: 'UNAVAILABLE' });
    expect(new Set(oddReads.map((r) => r.service))).toEqual(new Set(['discovery', 'audit']));
    for (const read of oddReads) expect(read).toMatchObject({ status: 503, retryAfter: expect.stringMatching(/^\d+$/) });
    figures['refused attempts'] = ledger.refusals.length;
    figures['refused reads'] = oddReads.length;
    figures['accepted publishes'] = ledger.published.length;
    figures['stored although refused'] = ledger.storedDespiteRefusal.length;
  }, 90_000);
});
