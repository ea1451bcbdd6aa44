import { DataSource, type MigrationInterface, type QueryRunner } from 'typeorm';
import { Client } from 'pg';

export interface DatabaseOptions {
  url: string;
  /** Each service owns one schema; no service reads another's tables. */
  schema: string;
  migrations: Array<new () => MigrationInterface>;
  poolSize?: number;
}

/**
 * Open a TypeORM data source on the service's own schema and apply its explicit migrations
 * (never `synchronize`). Repositories use `dataSource.query` and query runners for transactions.
 */
export async function openDatabase(options: DatabaseOptions): Promise<DataSource> {
  await ensureSchema(options.url, options.schema);
  const dataSource = new DataSource({
    type: 'postgres',
    url: options.url,
    schema: options.schema,
    migrations: options.migrations,
    migrationsTableName: `${options.schema}_migrations`,
    migrationsRun: false,
    synchronize: false,
    logging: false,
    // A request waits at most this long for a connection; past it the caller gets 503, not a hang.
    extra: { max: options.poolSize ?? 10, connectionTimeoutMillis: 10_000 },
  });
  await dataSource.initialize();
  await dataSource.runMigrations({ transaction: 'each' });
  return dataSource;
}

async function ensureSchema(url: string, schema: string): Promise<void> {
  if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`invalid schema name: ${schema}`);
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
  } catch (error) {
    // Two services creating their schemas at the same moment can race on the catalog; the other won.
    if ((error as { code?: string }).code !== '23505') throw error;
  } finally {
    await client.end();
  }
}

/**
 * The connection under a transaction broke. TypeORM releases a query runner as soon as its
 * connection reports an error, so the next query (or the rollback) fails with "Query runner
 * already released" instead of the connection error: that would read as a bug (500) where the
 * caller should hear "unavailable, retry" (503). SQLSTATE 08006 is connection_failure.
 */
export class ConnectionLostError extends Error {
  readonly code = '08006';
}

/** Runs `work` in one transaction on its own connection: commit on success, roll back on any error. */
export async function inTransaction<T>(
  db: DataSource, work: (runner: QueryRunner) => Promise<T>, isolation?: 'READ COMMITTED' | 'REPEATABLE READ' | 'SERIALIZABLE',
): Promise<T> {
  const runner = db.createQueryRunner();
  await runner.connect();
  try {
    await runner.startTransaction(isolation);
    const result = await work(runner);
    await runner.commitTransaction();
    return result;
  } catch (error) {
    // A lost connection takes its transaction with it: the server rolls it back.
    if (runner.isReleased) throw new ConnectionLostError('the database connection was lost during a transaction', { cause: error });
    // A rollback that fails must not hide why the transaction failed.
    if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
    throw error;
  } finally {
    await runner.release();
  }
}
