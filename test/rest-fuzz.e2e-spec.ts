import { request } from 'node:http';
import { startBankServer } from '../examples/bank/bank.server';
import { ADMIN, http, token, waitFor } from './support/estate.harness';
import { startEstateServices, type EstateServices } from './support/estate.stack';
import { nextRequest, seededRandom, ROUTES, type FuzzRequest } from './support/rest-fuzz.cases';

/** Issue 8: 10,000 hostile REST requests across the four services, zero 5xx, the trail complete. */

const TOTAL = 10_000;
const CONCURRENCY = 16;
const SEED = Number(process.env.ESTATE_FUZZ_SEED ?? 20261130);

interface Answer {
  status: number;
  service: string;
  request: FuzzRequest;
}

/** Sends the request target exactly as generated: fetch would normalize or refuse some of them. */
function send(base: URL, req: FuzzRequest, bearer: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { 'content-type': req.contentType ?? 'application/json' };
    if (req.authorized) headers.authorization = `Bearer ${bearer}`;
    if (req.body !== undefined) headers['content-length'] = String(Buffer.byteLength(req.body));
    const r = request({ host: base.hostname, port: base.port, method: req.method, path: req.path, headers }, (res) => {
      res.resume();
      // The event stream never ends on its own: its status is all this run needs.
      if (res.headers['content-type']?.includes('text/event-stream')) res.destroy();
      resolve(res.statusCode ?? 0);
    });
    r.setTimeout(10_000, () => r.destroy(new Error(`timeout on ${req.method} ${req.path.slice(0, 200)}`)));
    r.on('error', reject);
    r.end(req.body);
  });
}

describe('REST fuzz across registry, discovery, audit and edge', () => {
  let estate: EstateServices;
  let bases: Record<keyof typeof ROUTES, URL>;
  let admin: string;

  beforeAll(async () => {
    estate = await startEstateServices({ name: 'rest-fuzz', audit: true });
    const bank = await startBankServer({ port: 0 });
    estate.onStop(bank.close);
    const edge = await estate.startEdge();
    admin = await token(ADMIN);
    bases = {
      registry: new URL(estate.registryUrl),
      discovery: new URL(estate.discoveryUrl),
      audit: new URL(estate.auditUrl as string),
      edge: new URL(edge.mcpUrl),
    };
    // A server for the generated publishes to land on, so some of them are accepted events.
    expect((await http('POST', `${estate.registryUrl}/v1/servers`, admin, { name: 'fz', url: bank.url, owner: 'fuzz' })).status).toBe(201);
  }, 60000);

  afterAll(async () => {
    await estate?.stop();
  });

  it(`answers ${TOTAL} hostile requests without a 5xx, stays alive, and the trail is complete`, async () => {
    const random = seededRandom(SEED);
    const services = Object.keys(ROUTES) as Array<keyof typeof ROUTES>;
    const requests = Array.from({ length: TOTAL }, (_, i) => {
      const service = services[i % services.length];
      return { service, request: nextRequest(random, service) };
    });
    const answers: Answer[] = [];
    const failures: string[] = [];
    let next = 0;
    const started = Date.now();
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      while (next < requests.length) {
        const { service, request: req } = requests[next++];
        try {
          answers.push({ status: await send(bases[service], req, admin), service, request: req });
        } catch (error) {
          failures.push(`${service} ${req.method} ${req.path.slice(0, 120)}: ${String(error)}`);
        }
      }
    }));
    const elapsed = Date.now() - started;

    const serverErrors = answers.filter((a) => a.status >= 500 || a.status === 0);
    expect(failures).toEqual([]);
    expect(serverErrors.map((a) => `${a.status} ${a.service} ${a.request.method} ${a.request.path.slice(0, 160)} ${a.request.body?.slice(0, 80) ?? ''}`)).toEqual([]);
    expect(answers).toHaveLength(TOTAL);

    // Alive: each service still answers a normal request.
    for (const url of [`${estate.registryUrl}/healthz`, `${estate.discoveryUrl}/v1/catalog`, `${estate.auditUrl}/healthz`, new URL('/healthz', bases.edge).toString()]) {
      expect({ url, status: (await http('GET', url, admin)).status }).toEqual({ url, status: 200 });
    }
    const accepted = answers.filter((a) => a.service === 'registry' && a.request.method === 'POST' && (a.status === 200 || a.status === 201)).length;
    // verify's caughtUp is measured against the logs: an accepted write the relay has not sent yet is
    // not in them, so the trail is first awaited until it holds every accepted write (and the setup's server).
    await waitFor(async () => ((await countRegistryEntries(estate.auditUrl as string, admin)) >= accepted + 1 ? true : undefined),
      'every accepted registry write to reach the trail', 30000);
    const verify = await waitFor(async () => {
      const v = await http('GET', `${estate.auditUrl}/v1/audit/verify`, admin);
      return v.body.caughtUp === true ? v.body : undefined;
    }, 'the audit trail to catch up with the logs', 30000);
    expect(verify).toMatchObject({ ok: true, chainOk: true, complete: true });
    // Every accepted registry write is an event in the trail (none of them is a dead letter).
    expect(accepted).toBeGreaterThan(20);
    expect(verify.deadLetters).toBe(0);
    const recorded = await countRegistryEntries(estate.auditUrl as string, admin);
    // The setup registered the `fz` server: one event more than the fuzz run's accepted writes.
    expect(recorded).toBe(accepted + 1);
    process.stderr.write(`[rest-fuzz] ${TOTAL} requests in ${elapsed} ms (seed ${SEED}); ${accepted} accepted registry writes; `
      + `statuses ${JSON.stringify(countBy(answers.map((a) => a.status)))}\n`);
  }, 300000); // 10,000 requests take about 40 s on an idle machine; generous for a loaded one
});

/** Pages through the trail's registry events (server registrations and publishes). */
async function countRegistryEntries(auditUrl: string, admin: string): Promise<number> {
  let count = 0;
  for (const type of ['ServerRegistered', 'ToolVersionPublished']) {
    let cursor: string | null = null;
    do {
      const page = await http('GET', `${auditUrl}/v1/audit?type=${type}&limit=500${cursor ? `&cursor=${cursor}` : ''}`, admin);
      count += (page.body.entries as unknown[]).length;
      cursor = page.body.nextCursor as string | null;
    } while (cursor);
  }
  return count;
}

function countBy(values: number[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const v of values) counts[v] = (counts[v] ?? 0) + 1;
  return counts;
}
