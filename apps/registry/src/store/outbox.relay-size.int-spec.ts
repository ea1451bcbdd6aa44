import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { ToolSpec } from '@estate/contracts';
import type { EventEnvelope } from '@estate/events';
import {
  createLogger, estateTopics, KafkaEventBus, MessageRefused, openDatabase, REGISTRY_EVENT_MAX_BYTES, type Subscription,
} from '@estate/platform';
import { bankSpecs } from '../../../../examples/bank/bank.specs';
import { http, TEST_SECRET, token, waitFor } from '../../../../test/support/estate.harness';
import { createTestDatabase, kafkaBrokers, randomTopicPrefix } from '../../../../test/support/infra';
import { loadRegistryConfig } from '../config';
import { toHttpError } from '../http/registry.errors.mapper';
import { PublishHandler } from '../publish/publish.handler';
import { RegistryQueries } from '../read/registry.queries';
import { startRegistry } from '../registry.app';
import { EventTooLarge } from './event-store.port';
import { REGISTRY_ENTITIES, REGISTRY_MIGRATIONS } from './migrations';
import { OutboxRelay } from './outbox.relay';
import { PostgresEventStore } from './postgres-event-store';
import { relayBacklog } from './relay.backlog';

const ADMIN = { sub: 'root', scope: 'estate:admin estate:publish', clearance: 'restricted' };

/** A valid contract whose JSON takes exactly `bytes` bytes: its one parameter has a long list of allowed values. */
function specOfSize(name: string, bytes: number): ToolSpec {
  const base = bankSpecs('big')[0];
  const values = Array.from({ length: Math.floor(bytes / 10) - 100 }, (_, i) => `v${String(i).padStart(6, '0')}`);
  const build = (): ToolSpec => ({ ...base, name, inputSchema: { type: 'object', properties: { code: { enum: values } }, required: ['code'], additionalProperties: false } });
  values.push('');
  values[values.length - 1] = 'p'.repeat(bytes - Buffer.byteLength(JSON.stringify(build())));
  return build();
}

/** The registry's body limit (1 MiB): the largest contract a request can carry. */
const BODY_LIMIT = 1024 * 1024;

function watch(bus: KafkaEventBus, topic: string, into: EventEnvelope[]): Promise<Subscription> {
  return bus.subscribe({
    topic, groupId: `size-${randomUUID()}`, fromBeginning: true,
    handle: async (m) => void into.push(JSON.parse(m.value ?? 'null') as EventEnvelope),
  });
}

describe('registry events of any accepted size reach Kafka (real PostgreSQL and Kafka)', () => {
  const logger = createLogger('relay-size', 'error');
  const seen: EventEnvelope[] = [];
  let bus: KafkaEventBus;
  let registry: Awaited<ReturnType<typeof startRegistry>>;
  let subscription: Subscription;
  let drop: () => Promise<void>;
  let admin: string;
  const prefix = randomTopicPrefix();

  beforeAll(async () => {
    const db = await createTestDatabase();
    drop = db.drop;
    bus = new KafkaEventBus({ brokers: kafkaBrokers(), clientId: 'relay-size', logger });
    const env = { ESTATE_JWT_SECRET: TEST_SECRET, ESTATE_TOPIC_PREFIX: prefix, ESTATE_REGISTRY_PORT: '0' };
    registry = await startRegistry({ ...loadRegistryConfig(env), databaseUrl: db.url }, bus, logger);
    subscription = await watch(bus, estateTopics(prefix, 3_600_000).registryEvents.name, seen);
    admin = await token(ADMIN);
    expect((await http('POST', `${registry.url}/v1/servers`, admin, { name: 'big', url: 'http://127.0.0.1:1/mcp', owner: 'payments-team' })).status).toBe(201);
  });

  afterAll(async () => {
    await subscription.stop();
    await registry.stop();
    await bus.close();
    await drop();
  });

  const arrived = (names: string[]) => waitFor(
    async () => (names.every((n) => seen.some((e) => e.stream === `tool:${n}`)) ? true : undefined), `${names.join(', ')} on Kafka`, 30000,
  );

  it('the broker default refuses a 1 MB message: why the registry topic declares its own limit', async () => {
    const topic = `${randomTopicPrefix()}default-limit`;
    await bus.ensureTopics([{ name: topic }]);
    await expect(bus.publish(topic, [{ key: 'k', value: 'x'.repeat(1_100_000) }])).rejects.toBeInstanceOf(MessageRefused);
  });

  it('relays a contract at the body limit, and the events published after it', async () => {
    // With its envelope the event passes the broker's default batch limit (1,048,588 bytes).
    const big = specOfSize('big.huge', BODY_LIMIT - 100);
    expect(Buffer.byteLength(JSON.stringify(big))).toBe(BODY_LIMIT - 100);
    expect((await http('POST', `${registry.url}/v1/tools`, admin, big)).status).toBe(201);
    expect((await http('POST', `${registry.url}/v1/tools`, admin, { ...bankSpecs('big')[0], name: 'big.after' })).status).toBe(201);
    await arrived(['big.huge', 'big.after']);
    const event = seen.find((e) => e.stream === 'tool:big.huge');
    expect(Buffer.byteLength(JSON.stringify(event))).toBeGreaterThan(BODY_LIMIT);
    expect(registry.relay.lastFailure).toBeUndefined();
  });

  it('relays several 300 KB contracts published at once, in order, in batches the topic takes', async () => {
    const names = Array.from({ length: 8 }, (_, i) => `big.wide${i}`);
    const answers = await Promise.all(names.map((n) => http('POST', `${registry.url}/v1/tools`, admin, specOfSize(n, 300_000))));
    expect(answers.map((a) => a.status)).toEqual(names.map(() => 201));
    const small = Array.from({ length: 5 }, (_, i) => `big.small${i}`);
    for (const n of small) expect((await http('POST', `${registry.url}/v1/tools`, admin, { ...bankSpecs('big')[0], name: n })).status).toBe(201);
    await arrived([...names, ...small]);
    expect(registry.relay.lastFailure).toBeUndefined();
    expect(new Set(seen.map((e) => e.id)).size).toBe(seen.length);
  });

  it('refuses with 413 a contract whose event would pass the limit, storing nothing (behind the body limit: the service itself)', async () => {
    const actor = { id: 'root', scopes: ['estate:admin', 'estate:publish'], clearance: 'restricted' as const };
    const outcome = await registry.useCase(PublishHandler).execute(specOfSize('big.giant', REGISTRY_EVENT_MAX_BYTES), { actor: actor.id, correlationId: 'c' });
    if (outcome.ok) throw new Error('a contract over the event limit was stored');
    expect(outcome.error).toMatchObject({ code: 'EVENT_TOO_LARGE', message: expect.stringMatching(/^the event for tool:big\.giant would take \d+ bytes on the registry log; the limit is 2097152/) });
    expect(toHttpError(outcome.error).getStatus()).toBe(413);
    expect(await registry.useCase(RegistryQueries).readTool(actor, 'big.giant')).toBeUndefined();
  });
});

describe('an event the bus refuses does not stop the ones behind it (real PostgreSQL and Kafka)', () => {
  const logger = createLogger('relay-park', 'fatal');
  const seen: EventEnvelope[] = [];
  let db: DataSource;
  let drop: () => Promise<void>;
  let bus: KafkaEventBus;
  let relay: OutboxRelay;
  let subscription: Subscription;
  let store: PostgresEventStore;
  // A topic whose limit is far below what the store accepts: an event stored before the door check, or a limit lowered by hand.
  const spec = { name: `${randomTopicPrefix()}estate.registry.events`, maxMessageBytes: 64 * 1024 };

  beforeAll(async () => {
    let url: string;
    ({ url, drop } = await createTestDatabase());
    db = await openDatabase({ url, schema: 'registry', migrations: REGISTRY_MIGRATIONS, entities: REGISTRY_ENTITIES });
    store = new PostgresEventStore(db, randomUUID, () => new Date());
    bus = new KafkaEventBus({ brokers: kafkaBrokers(), clientId: 'relay-park', logger });
    await bus.ensureTopics([spec]);
    subscription = await watch(bus, spec.name, seen);
    relay = new OutboxRelay(db, url, bus, spec, logger, 'kafka', 1024 * 1024);
  });

  afterAll(async () => {
    await relay.stop();
    await subscription.stop();
    await bus.close();
    await db.destroy();
    await drop();
  });

  it('parks the refused event with its reason, counts it, and relays the rest in order', async () => {
    const meta = { actor: 'test', correlationId: 'c' };
    await store.append('tool:a', 0, [{ type: 'Probe', version: 1, data: { n: 0 } }], meta);
    const [refused] = await store.append('tool:a', 1, [{ type: 'Probe', version: 1, data: { blob: 'x'.repeat(100_000) } }], meta);
    await store.append('tool:a', 2, [{ type: 'Probe', version: 1, data: { n: 2 } }], meta);
    await store.append('tool:b', 0, [{ type: 'Probe', version: 1, data: { n: 0 } }], meta);
    await relay.start();
    await waitFor(async () => (seen.length >= 3 ? true : undefined), 'the three small events', 30000);
    expect(seen.map((e) => `${e.stream}#${e.position}`)).toEqual(['tool:a#0', 'tool:a#2', 'tool:b#0']);
    const parked: Array<{ event_id: string; reason: string; bytes: number }> = await db.query(`SELECT event_id, reason, bytes FROM registry.relay_parked`);
    expect(parked).toEqual([{ event_id: refused.id, bytes: expect.any(Number), reason: expect.stringMatching(/MESSAGE_TOO_LARGE|RECORD_LIST_TOO_LARGE/) }]);
    expect(parked[0].bytes).toBeGreaterThan(100_000);
    // The checkpoint moves right after the send: the consumer may see the events a moment before.
    const backlog = await waitFor(async () => {
      const now = await relayBacklog(db, relay);
      return now.waiting === 0 ? now : undefined;
    }, 'an empty backlog');
    expect(backlog).toMatchObject({ parked: 1, lastError: null });
  });

  it('refuses at the door an event larger than the registry log carries, storing nothing', async () => {
    const append = store.append('tool:c', 0, [{ type: 'Probe', version: 1, data: { blob: 'x'.repeat(REGISTRY_EVENT_MAX_BYTES) } }], { actor: 't', correlationId: 'c' });
    await expect(append).rejects.toBeInstanceOf(EventTooLarge);
    await expect(append).rejects.toThrow(/tool:c would take \d+ bytes on the registry log; the limit is 2097152/);
    expect(await store.readStream('tool:c')).toEqual([]);
  });
});
