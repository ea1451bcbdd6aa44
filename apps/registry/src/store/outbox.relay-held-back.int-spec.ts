import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { createLogger, openDatabase, PostgresEventBus } from '@estate/platform';
import { waitFor } from '../../../../test/support/estate.harness';
import { createTestDatabase } from '../../../../test/support/infra';
import { REGISTRY_ENTITIES, REGISTRY_MIGRATIONS } from './migrations';
import { OutboxRelay } from './outbox.relay';
import { IDLE_PASS_MS } from './relay.wake';
import { PostgresEventStore } from './postgres-event-store';

/** Events that committed behind an older transaction still running: no NOTIFY comes when it ends. */
describe('the outbox relay and events held back by an older transaction (real PostgreSQL)', () => {
  const logger = createLogger('relay-held-back', 'error');
  const topic = `t-${randomUUID()}`;
  let url: string;
  let db: DataSource;
  let drop: () => Promise<void>;
  let bus: PostgresEventBus;
  let relay: OutboxRelay;
  let store: PostgresEventStore;

  beforeAll(async () => {
    ({ url, drop } = await createTestDatabase());
    db = await openDatabase({ url, schema: 'registry', migrations: REGISTRY_MIGRATIONS, entities: REGISTRY_ENTITIES });
    bus = new PostgresEventBus({ url, logger });
    await bus.ensureTopics([{ name: topic }]);
    store = new PostgresEventStore(db, randomUUID, () => new Date());
    relay = new OutboxRelay(db, url, bus, topic, logger);
    await relay.start();
  });

  afterAll(async () => {
    await relay.stop();
    await bus.close();
    await db.destroy();
    await drop();
  });

  const append = (stream: string, expected: number) =>
    store.append(stream, expected, [{ type: 'Probe', version: 1, data: { n: expected } }], { actor: 'test', correlationId: 'c' });
  const published = async () => (await bus.readPage(topic, 0, '0', 100)).map((m) => (JSON.parse(m.value ?? 'null') as { stream: string }).stream);

  it('publishes them soon after that transaction ends, well before the idle pass', async () => {
    await append('tool:first', 0);
    await waitFor(async () => ((await published()).length === 1 ? true : undefined), 'the first event on the log', 10_000);
    const older = new Client({ connectionString: url });
    await older.connect();
    try {
      await older.query('BEGIN');
      await older.query('SELECT pg_current_xact_id()'); // a transaction id, older than the append's
      await append('tool:behind', 0);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(await published()).toEqual(['tool:first']);
      await older.query('COMMIT');
    } finally {
      await older.end();
    }
    const ended = Date.now();
    await waitFor(async () => ((await published()).length === 2 ? true : undefined), 'the held-back event on the log', 10_000);
    expect(Date.now() - ended).toBeLessThan(IDLE_PASS_MS / 2);
    expect(await published()).toEqual(['tool:first', 'tool:behind']);
  });
});
