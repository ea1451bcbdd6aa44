import { DataSource, type ColumnType, type MigrationInterface, type QueryRunner } from 'typeorm';
import { Client, type Pool } from 'pg';

export interface DatabaseOptions {
  url: string;
  /** Each service owns one schema; no service reads another's tables. */
  schema: string;
  migrations: Array<new () => MigrationInterface>;
  /** The schema's tables as entities; the migrations create exactly these (a drift test checks it). */
  entities?: Array<new () => object>;
  poolSize?: number;
}

/**
 * PostgreSQL types the schema uses that TypeORM's driver does not list: `xid8` (PostgreSQL 13+)
 * holds the transaction id the relay orders by. Listed, an entity can declare such a column as it
 * is, and the schema diff compares it like any other type.
 */
export const XID8 = 'xid8' as ColumnType;
const EXTRA_COLUMN_TYPES: ColumnType[] = [XID8];

/**
 * Open a TypeORM data source on the service's own schema with its entities, and apply its
 * explicit migrations (never `synchronize`). Repositories read and write through the entities;
 * raw SQL stays where TypeORM cannot say the query, each with its reason.
 */
/**
 * pg's own pool under a TypeORM data source: TypeORM's query() cannot name a statement, and a
 * named statement is parsed and planned once per connection. For the hot statements only.
 */
export function pgPool(db: DataSource): Pool {
  return (db.driver as unknown as { master: Pool }).master;
}

export async function openDatabase(options: DatabaseOptions): Promise<DataSource> {
  await ensureSchema(options.url, options.schema);
  const dataSource = new DataSource({
    type: 'postgres',
    url: options.url,
    schema: options.schema,
    entities: options.entities ?? [],
    migrations: options.migrations,
    migrationsTableName: `${options.schema}_migrations`,
    migrationsRun: false,
    synchronize: false,
    // The migrations own the schema: TypeORM installs no extension at connect. gen_random_uuid()
    // (built in since PostgreSQL 13) is what it should write for a generated uuid.
    installExtensions: false,
    uuidExtension: 'pgcrypto',
    logging: false,
    // A request waits at most this long for a connection; past it the caller gets 503, not a hang.
    extra: { max: options.poolSize ?? 10, connectionTimeoutMillis: 10_000 },
  });
  // Before initialize: that is when TypeORM checks every entity column's type against this list.
  dataSource.driver.supportedDataTypes.push(...EXTRA_COLUMN_TYPES);
  await dataSource.initialize();
  await underMigrationLock(options.url, options.schema, () => dataSource.runMigrations({ transaction: 'each' }));
  return dataSource;
}

/**
 * Copies of a service started together (replicas) would run the same migrations at once and
 * collide on the catalog; a session-level advisory lock per schema lets one run them while the
 * others wait, then find nothing left to do.
 */
async function underMigrationLock<T>(url: string, schema: string, work: () => Promise<T>): Promise<T> {
  const lock = new Client({ connectionString: url });
  // Idle while the migrations run on other connections: a server going away then must not be an
  // unhandled 'error' event (it would end the process); the lock is gone with the session anyway.
  lock.on('error', () => undefined);
  await lock.connect();
  try {
    // Raw SQL: an advisory lock on a session of its own, held until the migrations ran.
    await lock.query(`SELECT pg_advisory_lock(hashtext('estate.migrations'), hashtext($1))`, [schema]);
    return await work();
  } finally {
    await lock.end();
  }
}

async function ensureSchema(url: string, schema: string): Promise<void> {
  if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`invalid schema name: ${schema}`);
  const client = new Client({ connectionString: url });
  client.on('error', () => undefined); // a failure reaches the query below; the event alone would end the process
  await client.connect();
  try {
    // Raw SQL: the schema must exist before the data source (and its migrations table) can use it.
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
