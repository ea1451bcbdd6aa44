import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { createLogger } from '@estate/platform';
import { createTestDatabase } from '../../../../test/support/infra';
import { RequestStateSealer, SPEND_RETRY_AFTER_MS } from '../mcp/request-state.sealer';
import { WireError } from '../mcp/wire-error';
import { PostgresSpentStates } from './postgres-spent-states';

const KEY = 'k'.repeat(40);
const TTL = 60_000;
const binding = { principal: 'tenant/alice', method: 'tools/call', binding: 'bank.transfer#abc' };
const logger = createLogger('spent-states-test', 'silent');

describe('spent confirmation states shared in PostgreSQL', () => {
  let database: { url: string; drop(): Promise<void> };
  const stores: PostgresSpentStates[] = [];
  let now = Date.UTC(2026, 10, 30, 12);
  const clock = () => now;
  const copy = async () => {
    const store = await PostgresSpentStates.open(database.url, { sweepEveryMs: 3_600_000, logger, clock, poolSize: 2 });
    stores.push(store);
    return store;
  };

  beforeEach(async () => {
    database = await createTestDatabase();
  });
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close().catch(() => undefined);
    await database.drop();
  });

  it('lets exactly one of two copies spend a state, even when both try at the same moment', async () => {
    const [a, b] = [await copy(), await copy()];
    const id = randomUUID();
    const results = await Promise.all([a.spendOnce(id, now + TTL), b.spendOnce(id, now + TTL), a.spendOnce(id, now + TTL), b.spendOnce(id, now + TTL)]);
    expect(results.filter(Boolean)).toHaveLength(1);
    await expect(b.spendOnce(randomUUID(), now + TTL)).resolves.toBe(true);
  });

  it('refuses on one copy the accepted retry another copy already ran', async () => {
    const first = new RequestStateSealer(KEY, TTL, clock, await copy());
    const second = new RequestStateSealer(KEY, TTL, clock, await copy());
    const state = first.seal(binding, { nonce: randomUUID() });
    const opened = second.open<{ nonce: string }>(state, binding);
    if (!opened.ok) throw new Error(`state did not open: ${opened.reason}`);
    await expect(second.spendOnce(opened.data.nonce)).resolves.toBe(true);
    await expect(first.spendOnce(opened.data.nonce)).resolves.toBe(false);
    await expect(second.spendOnce(opened.data.nonce)).resolves.toBe(false);
  });

  it('sweeps expired rows in bounded batches and keeps the ones still alive', async () => {
    const store = await copy();
    const admin = new Client({ connectionString: database.url });
    await admin.connect();
    try {
      // 2,500 rows already expired (more than two batches) and one spent a moment ago.
      await admin.query(`INSERT INTO edge.spent_states (id, expires_at) SELECT 'old-' || g, $1 FROM generate_series(1, 2500) g`, [new Date(now - 1)]);
      const live = randomUUID();
      await store.spendOnce(live, now + TTL);
      await expect(store.sweep()).resolves.toBe(2500);
      const { rows } = await admin.query<{ id: string }>('SELECT id FROM edge.spent_states');
      expect(rows.map((r) => r.id)).toEqual([live]);
      await expect(store.spendOnce(live, now + TTL)).resolves.toBe(false);
      now += TTL;
      await expect(store.sweep()).resolves.toBe(1);
    } finally {
      await admin.end();
    }
  });

  it('fails closed: with the database gone the retry is refused with a retryable error, not let through', async () => {
    const sealer = new RequestStateSealer(KEY, TTL, clock, await copy());
    const nonce = randomUUID();
    await database.drop();
    const refused = await sealer.spendOnce(nonce).then(() => undefined, (error: unknown) => error);
    expect(refused).toBeInstanceOf(WireError);
    expect(refused).toMatchObject({
      code: -32603,
      message: expect.stringMatching(/could not be recorded as used .*the tool was not called\. Send the same request again/),
      data: { retryable: true, 'io.estate/retryAfterMs': SPEND_RETRY_AFTER_MS },
    });
  });
});
