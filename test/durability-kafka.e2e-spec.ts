import type { ToolSpec } from '@estate/contracts';
import type { CatalogEntry } from '@estate/events';
import { bankSpecs } from '../examples/bank/bank.specs';
import { ADMIN, http, token, waitFor } from './support/estate.harness';
import { startEstateServices, type EdgeHandle, type EstateServices } from './support/estate.stack';
import { startPrivateKafka, type PrivateKafka } from './support/private-kafka';

/**
 * What survives what, on a broker of this test's own: a restart under a steady publisher, a
 * broker whose data is wiped, and a rebuild while publishing goes on. Every recovery must happen
 * without an operator; the figures measured are printed at the end (README's table).
 */
describe('durability on Kafka (a private broker, restarted and wiped)', () => {
  const [lookup] = bankSpecs('dur');
  const published: Array<{ name: string; version: string }> = [];
  const figures: Record<string, number> = {};
  let kafka: PrivateKafka;
  let stack: EstateServices;
  let edge: EdgeHandle;
  let admin: string;

  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const next = new Map<string, number>();

  async function publishOne(tool: string): Promise<void> {
    const n = next.get(tool) ?? 0;
    next.set(tool, n + 1);
    const spec: ToolSpec = { ...lookup, name: `dur.${tool}`, version: `1.${n}.0`, upstream: { server: 'dur', tool } };
    const response = await http('POST', `${stack.registryUrl}/v1/tools`, admin, spec);
    // The registry needs only PostgreSQL: a publish is accepted whatever the broker is doing.
    expect(response.status).toBe(201);
    published.push({ name: spec.name, version: spec.version });
  }

  /** One publish every 100 ms for `ms`, round-robin over the tools. */
  async function publishFor(ms: number, tools: string[]): Promise<void> {
    const end = Date.now() + ms;
    for (let i = 0; Date.now() < end; i += 1) {
      const started = Date.now();
      await publishOne(tools[i % tools.length]);
      await sleep(Math.max(0, 100 - (Date.now() - started)));
    }
  }

  async function catalog(): Promise<CatalogEntry[]> {
    return ((await http('GET', `${stack.discoveryUrl}/v1/catalog`, admin)).body.tools ?? []) as CatalogEntry[];
  }

  async function catalogHoldsEveryPublish(): Promise<true | undefined> {
    const have = new Set((await catalog()).flatMap((t) => t.versions.map((v) => `${t.name}@${v.version}`)));
    return published.every((p) => have.has(`${p.name}@${p.version}`)) ? true : undefined;
  }

  /** The edge serves from its own replica of the catalog topic: it must not keep a stale list. */
  async function edgeHoldsEveryPublish(): Promise<true | undefined> {
    return published.every((p) => edge.replica.get(p.name)?.versions.some((v) => v.version === p.version)) ? true : undefined;
  }

  async function auditedPublishes(): Promise<string[]> {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = `type=ToolVersionPublished&limit=500${cursor ? `&cursor=${cursor}` : ''}`;
      const page = (await http('GET', `${stack.auditUrl}/v1/audit?${query}`, admin)).body as { entries: Array<{ tool: string; version: string }>; nextCursor: string | null };
      seen.push(...page.entries.map((e) => `${e.tool}@${e.version}`));
      cursor = page.nextCursor;
    } while (cursor);
    return seen;
  }

  async function auditHoldsEveryPublishOnce(): Promise<true | undefined> {
    const seen = await auditedPublishes();
    return seen.length === published.length ? true : undefined;
  }

  async function expectRecovered(label: string, since: number): Promise<void> {
    await waitFor(catalogHoldsEveryPublish, `${label}: every publish in discovery's catalog`, 120_000);
    figures[`${label}: catalog complete`] = Date.now() - since;
    await waitFor(edgeHoldsEveryPublish, `${label}: every publish in the edge's replica`, 60_000);
    figures[`${label}: edge replica complete`] = Date.now() - since;
    await waitFor(auditHoldsEveryPublishOnce, `${label}: every publish in the audit trail`, 120_000);
    figures[`${label}: audit complete`] = Date.now() - since;
    const audited = (await auditedPublishes()).sort();
    expect(audited).toEqual(published.map((p) => `${p.name}@${p.version}`).sort());
    const verify = await http('GET', `${stack.discoveryUrl}/v1/verify`, admin);
    expect(verify).toMatchObject({ status: 200, body: { equal: true, differences: [] } });
    expect((await http('GET', `${stack.auditUrl}/v1/audit/verify`, admin)).body).toMatchObject({ ok: true });
  }

  beforeAll(async () => {
    kafka = await startPrivateKafka();
    stack = await startEstateServices({ name: 'durability', audit: true, brokers: kafka.brokers });
    admin = await token(ADMIN);
    edge = await stack.startEdge();
    expect((await http('POST', `${stack.registryUrl}/v1/servers`, admin, { name: 'dur', url: 'http://127.0.0.1:1/mcp', owner: 'ops' })).status).toBe(201);
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
    await kafka?.stop();
    process.stderr.write(`[durability] recovery figures (ms): ${JSON.stringify(figures)}\n`);
  }, 60_000);

  it('loses nothing and keeps each tool in order when the broker restarts under a steady publisher', async () => {
    const publishing = publishFor(30_000, ['a', 'b', 'c']);
    await sleep(5_000);
    const down = Date.now();
    await kafka.restart();
    const back = Date.now();
    figures['(a) broker down'] = back - down;
    await publishing;
    await expectRecovered('(a) restart', back);
    for (const entry of (await catalog()).filter((t) => ['dur.a', 'dur.b', 'dur.c'].includes(t.name))) {
      expect(entry.versions.map((v) => v.version)).toEqual(published.filter((p) => p.name === entry.name).map((p) => p.version));
    }
  }, 300_000);

  it("notices a wiped broker, relays the store again and recovers without an operator, each publish audited once", async () => {
    const down = Date.now();
    const wiping = kafka.wipeAndRestart();
    for (let i = 0; i < 6; i += 1) {
      await publishOne('d');
      await sleep(300);
    }
    await wiping;
    const back = Date.now();
    figures['(b) broker down'] = back - down;
    await publishOne('d');
    await expectRecovered('(b) wipe', back);
  }, 300_000);

  it('ends a rebuild run while publishing goes on equal to a fresh fold of the event store', async () => {
    const publishing = publishFor(8_000, ['e', 'f']);
    await sleep(2_000);
    const started = Date.now();
    const rebuilt = await http('POST', `${stack.discoveryUrl}/v1/rebuild`, admin);
    figures['(c) rebuild'] = Date.now() - started;
    expect(rebuilt).toMatchObject({ status: 200, body: { source: 'log', servers: 1 } });
    await publishing;
    await expectRecovered('(c) rebuild', started);
  }, 180_000);
});
