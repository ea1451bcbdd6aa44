import { randomUUID } from 'node:crypto';
import { topicName } from '@estate/events';
import { createLogger } from '@estate/platform';
import { bankSpecs } from '../examples/bank/bank.specs';
import { composeEstate, type ComposedEstate } from '../apps/estate/src/estate.composition';
import { ADMIN, http, TEST_SECRET, token, waitFor } from './support/estate.harness';
import { createTestDatabase, kafkaBrokers, randomTopicPrefix } from './support/infra';

/** The registry as `npm start` composes it, on each bus the composition builds from the env. */
const buses: Array<[string, () => Record<string, string>]> = [
  ['Kafka', () => ({ KAFKA_BROKERS: kafkaBrokers().join(',') })],
  ['the embedded PostgreSQL log', () => ({ KAFKA_BROKERS: '', ESTATE_BUS: 'postgres' })],
];

describe.each(buses)('the registry quarantines on drift reports from the bus (%s)', (_, busEnvFor) => {
  const logger = createLogger('drift-quarantine-e2e', 'fatal');
  let estate: ComposedEstate;
  let drop: () => Promise<void>;
  let prefix: string;
  let registryUrl: string;
  let admin: string;

  beforeAll(async () => {
    const db = await createTestDatabase();
    drop = db.drop;
    prefix = randomTopicPrefix();
    const env = { DATABASE_URL: db.url, ...busEnvFor(), ESTATE_TOPIC_PREFIX: prefix, ESTATE_JWT_SECRET: TEST_SECRET, ESTATE_REGISTRY_PORT: '0' };
    estate = await composeEstate({ env, databaseUrl: db.url, logger, services: ['registry'] });
    registryUrl = estate.registry?.url ?? '';
    admin = await token(ADMIN);
    expect((await http('POST', `${registryUrl}/v1/servers`, admin, { name: 'bank', url: 'http://127.0.0.1:1/mcp', owner: 'ops' })).status).toBe(201);
    expect((await http('POST', `${registryUrl}/v1/tools`, admin, bankSpecs('bank')[0])).status).toBe(201);
  }, 60000);

  afterAll(async () => {
    await estate?.stop();
    await drop?.();
  });

  const report = (data: Record<string, unknown>, type = 'ToolVersionDriftDetected') => ({
    key: String(data.name),
    value: JSON.stringify({
      id: randomUUID(), type, version: 1, stream: `tool:${String(data.name)}`, position: 0, occurredAt: new Date().toISOString(),
      actor: 'estate-edge', correlationId: randomUUID(), data,
    }),
  });

  it('passes over what is not a drift report or names no known version, and quarantines the reported version once', async () => {
    const drift = { name: 'bank.lookup', version: '1.0.0', server: 'bank', upstreamTool: 'lookup', fields: ['description'], reason: 'upstream drift: lookup changed description' };
    await estate.bus.publish(topicName(prefix, 'drift'), [
      { key: 'x', value: '{not json' },
      report({ ...drift, version: '9.9.9' }),
      report(drift, 'ToolQuarantined'),
      report(drift),
      report(drift),
    ]);
    const version = await waitFor(async () => {
      const r = await http('GET', `${registryUrl}/v1/tools/bank.lookup/versions/1.0.0`, admin);
      return r.body.quarantined === true ? r.body : undefined;
    }, 'the version quarantined', 30000);
    expect(version).toMatchObject({ quarantined: true });
    // Reported twice, recorded once, as the edge that reported it.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const history = await http('GET', `${registryUrl}/v1/tools/bank.lookup/history`, admin);
    const changes = (history.body.changes as Array<{ change: string; version: string; actor: string }>).filter((c) => c.change === 'quarantined');
    expect(changes).toEqual([expect.objectContaining({ version: '1.0.0', actor: 'estate-edge' })]);
    expect((await http('GET', `${registryUrl}/v1/tools/bank.lookup/versions/9.9.9`, admin)).status).toBe(404);
  }, 60000);
});
