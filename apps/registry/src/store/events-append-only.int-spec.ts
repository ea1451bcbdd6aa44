import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { openDatabase } from '@estate/platform';
import { createTestDatabase } from '../../../../test/support/infra';
import { REGISTRY_MIGRATIONS } from './migrations';
import { PostgresEventStore } from './postgres-event-store';

/**
 * The event store refuses edits in the database itself: each statement is tried as the user the
 * registry connects with (the URL it is given), on a table holding events, and must fail
 * leaving every row as it was. Appending goes on working.
 */
describe('registry.events is append-only in PostgreSQL (real database)', () => {
  let db: DataSource;
  let drop: () => Promise<void>;
  let client: Client;
  let store: PostgresEventStore;
  let appUser: string;
  const stream = `tool:append-only-${randomUUID()}`;

  beforeAll(async () => {
    let url: string;
    ({ url, drop } = await createTestDatabase());
    appUser = decodeURIComponent(new URL(url).username);
    db = await openDatabase({ url, schema: 'registry', migrations: REGISTRY_MIGRATIONS });
    store = new PostgresEventStore(db, randomUUID, () => new Date('2026-11-30T12:00:00Z'));
    await store.append(stream, 0, [{ type: 'Probe', version: 1, data: { n: 0 } }, { type: 'Probe', version: 1, data: { n: 1 } }], { actor: 'test', correlationId: 'c' });
    client = new Client({ connectionString: url });
    await client.connect();
  });

  afterAll(async () => {
    await client?.end();
    await db?.destroy();
    await drop?.();
  });

  const snapshot = async () => (await client.query(`SELECT id, stream_version, type, data::text AS data, actor FROM registry.events ORDER BY position`)).rows as unknown[];

  it.each([
    ['UPDATE', `UPDATE registry.events SET actor = 'mallory'`],
    ['UPDATE', `UPDATE registry.events SET data = '{"n": 99}' WHERE stream_version = 1`],
    ['DELETE', `DELETE FROM registry.events WHERE stream_version = 0`],
    ['DELETE', `DELETE FROM registry.events WHERE false`],
    ['TRUNCATE', `TRUNCATE registry.events`],
    ['TRUNCATE', `TRUNCATE registry.events CASCADE`],
  ])('refuses %s (%s) as the application user, and changes nothing', async (operation, statement) => {
    const { rows: [{ user }] } = await client.query<{ user: string }>('SELECT current_user AS user');
    expect(user).toBe(appUser);
    const before = await snapshot();
    expect(before).toHaveLength(2);
    const error = await client.query(statement).then(() => undefined, (e: unknown) => e as { code?: string; message: string });
    expect(error).toBeDefined();
    expect(error?.code).toBe('42501');
    expect(error?.message).toContain(`registry.events is append-only (${operation} refused)`);
    expect(await snapshot()).toEqual(before);
  });

  it('still takes appends, through the store and as a plain INSERT', async () => {
    await store.append(stream, 2, [{ type: 'Probe', version: 1, data: { n: 2 } }], { actor: 'test', correlationId: 'c' });
    expect((await store.readStream(stream)).map((e) => e.data)).toEqual([{ n: 0 }, { n: 1 }, { n: 2 }]);
    await client.query(
      `INSERT INTO registry.events (id, stream_id, stream_version, type, version, data, actor, correlation_id, occurred_at)
       VALUES ($1, $2, 3, 'Probe', 1, '{"n": 3}', 'test', 'c', now())`,
      [randomUUID(), stream],
    );
    expect(await snapshot()).toHaveLength(4);
  });
});
