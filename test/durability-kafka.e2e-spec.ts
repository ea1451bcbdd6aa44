import { ADMIN, http, token, waitFor } from './support/estate.harness';
import { startEstateServices, type EstateServices } from './support/estate.stack';
import { startPrivateKafka, type PrivateKafka } from './support/private-kafka';
import { PublishLedger } from './support/publish.ledger';

/**
 * What survives what, on a broker of this test's own: a restart under a steady publisher, a
 * broker whose data is wiped, and a rebuild while publishing goes on. Every recovery must happen
 * without an operator; the figures measured are printed at the end (README's table).
 */
describe('durability on Kafka (a private broker, restarted and wiped)', () => {
  let kafka: PrivateKafka;
  let stack: EstateServices;
  let ledger: PublishLedger;
  let admin: string;

  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  beforeAll(async () => {
    kafka = await startPrivateKafka();
    stack = await startEstateServices({ name: 'durability', audit: true, brokers: kafka.brokers });
    admin = await token(ADMIN);
    ledger = new PublishLedger({ stack, edge: await stack.startEdge(), admin, server: 'dur' });
    expect((await http('POST', `${stack.registryUrl}/v1/servers`, admin, { name: 'dur', url: 'http://127.0.0.1:1/mcp', owner: 'ops' })).status).toBe(201);
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
    await kafka?.stop();
    process.stderr.write(`[durability] recovery figures (ms): ${JSON.stringify(ledger?.figures)}\n`);
  }, 60_000);

  it('loses nothing and keeps each tool in order when the broker restarts under a steady publisher', async () => {
    const publishing = ledger.publishFor(30_000, ['a', 'b', 'c']);
    await sleep(5_000);
    const down = Date.now();
    await kafka.restart();
    const back = Date.now();
    ledger.figures['(a) broker down'] = back - down;
    await publishing;
    await ledger.expectRecovered('(a) restart', back);
    await ledger.expectOrderKept();
  }, 300_000);

  it("notices a wiped broker, relays the store again and recovers without an operator, each publish audited once", async () => {
    const down = Date.now();
    const wiping = kafka.wipeAndRestart();
    for (let i = 0; i < 6; i += 1) {
      await ledger.publishOne('d');
      await sleep(300);
    }
    await wiping;
    const back = Date.now();
    ledger.figures['(b) broker down'] = back - down;
    await ledger.publishOne('d');
    await ledger.expectRecovered('(b) wipe', back);
  }, 300_000);

  it('ends a rebuild run while publishing goes on equal to a fresh fold of the event store', async () => {
    const publishing = ledger.publishFor(8_000, ['e', 'f']);
    await sleep(2_000);
    const started = Date.now();
    const rebuilt = await http('POST', `${stack.discoveryUrl}/v1/rebuild`, admin);
    ledger.figures['(c) rebuild'] = Date.now() - started;
    expect(rebuilt).toMatchObject({ status: 200, body: { source: 'log', servers: 1 } });
    await publishing;
    await ledger.expectRecovered('(c) rebuild', started);
  }, 180_000);

  it('answers verify promptly while the broker is away, then reports the trail caught up once it is back', async () => {
    await kafka.kill();
    try {
      const asked = Date.now();
      const away = await http('GET', `${stack.auditUrl}/v1/audit/verify`, admin);
      // The chain is proved from PostgreSQL alone; only "caught up" needs the broker.
      expect(away).toMatchObject({ status: 200, body: { chainOk: true, logsReachable: false, caughtUp: false } });
      expect(Date.now() - asked).toBeLessThan(8_000);
    } finally {
      await kafka.start();
    }
    await waitFor(async () => {
      const back = await http('GET', `${stack.auditUrl}/v1/audit/verify`, admin);
      return back.body.logsReachable === true && back.body.caughtUp === true ? back.body : undefined;
    }, 'verify to reach the logs again', 60_000);
  }, 180_000);
});
