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
    if (runner.isTransactionActive) await runner.rollbackTransaction();
    throw error;
  } finally {
    await runner.release();
  }
}
