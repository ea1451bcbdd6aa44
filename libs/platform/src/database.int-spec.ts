import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { createTestDatabase } from '../../../test/support/infra';
import { inTransaction, openDatabase } from './database';
import { isBackendOutage } from './http/backend-outage';

/** A transaction whose connection is cut (PostgreSQL terminating its backend, as a shutdown does). */
describe('inTransaction when the connection is lost', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let db: DataSource;
  let admin: Client;

  beforeAll(async () => {
    database = await createTestDatabase();
    db = await openDatabase({ url: database.url, schema: 'tx_test', migrations: [] });
    admin = new Client({ connectionString: database.url });
    await admin.connect();
  });

  afterAll(async () => {
    await admin?.end();
    await db?.destroy();
    await database?.drop();
  });

  const cutMidway = (afterCut: (runner: Parameters<Parameters<typeof inTransaction>[1]>[0]) => Promise<unknown>) => inTransaction(db, async (runner) => {
    const [{ pid }] = (await runner.query('SELECT pg_backend_pid() AS pid')) as Array<{ pid: number }>;
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    // The server's goodbye arrives as an error event on the idle connection.
    await new Promise((resolve) => setTimeout(resolve, 300));
    return afterCut(runner);
  }).then(() => undefined, (error: unknown) => error);

  it('fails as an outage (503, retry), not as an internal error, whether the next query or the commit meets the cut', async () => {
    for (const afterCut of [(runner: { query(sql: string): Promise<unknown> }) => runner.query('SELECT 1'), async () => undefined]) {
      const error = await cutMidway(afterCut);
      expect(error).toBeInstanceOf(Error);
      expect({ outage: isBackendOutage(error), message: String(error) }).toMatchObject({ outage: true });
    }
    // The pool hands out a fresh connection afterwards.
    expect(await inTransaction(db, (runner) => runner.query('SELECT 1 AS one'))).toEqual([{ one: 1 }]);
  });
});
