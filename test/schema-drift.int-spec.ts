import type { DataSource } from 'typeorm';
import { openDatabase, type DatabaseOptions } from '@estate/platform';
import { ESTATE_SCHEMAS } from '../apps/estate/src/estate.schemas';
import { createTestDatabase } from './support/infra';

/**
 * The migrations create the schema; the entities describe it to TypeORM. Each service's
 * migrations run on a fresh database (every schema side by side, as in the embedded mode),
 * then TypeORM is asked what SQL would make the database match the entities: none, or the two
 * have drifted apart. What TypeORM does not model is outside this check: triggers and their
 * functions, seeded rows, and the column order of an index (it compares an index's name and
 * column set).
 */
const SCHEMAS = ESTATE_SCHEMAS;
const discovery = ESTATE_SCHEMAS.find((s) => s.schema === 'discovery')!;

/** The statements `synchronize` would run: what the entities say and the database does not. */
async function pendingSchemaChanges(db: DataSource): Promise<string[]> {
  const sql = await db.driver.createSchemaBuilder().log();
  return sql.upQueries.map((q) => q.query);
}

describe('entities and migrations', () => {
  const opened: DataSource[] = [];
  const databases: Array<{ drop(): Promise<void> }> = [];

  const fresh = async (): Promise<string> => {
    const database = await createTestDatabase();
    databases.push(database);
    return database.url;
  };
  const open = async (options: DatabaseOptions): Promise<DataSource> => {
    const db = await openDatabase({ ...options, poolSize: 2 });
    opened.push(db);
    return db;
  };

  afterAll(async () => {
    for (const db of opened) await db.destroy();
    for (const database of databases) await database.drop();
  });

  it('agree for every schema: TypeORM finds nothing to change after the migrations ran', async () => {
    const url = await fresh();
    for (const schema of SCHEMAS) {
      const db = await open({ url, ...schema });
      expect(db.entityMetadatas.map((m) => m.tablePath).sort()).toEqual(
        (schema.entities ?? []).map((e) => db.getMetadata(e).tablePath).sort(),
      );
      await expect(pendingSchemaChanges(db)).resolves.toEqual([]);
    }
  });

  it('disagree visibly when a migration is missing: the check names the column the entity has and the table lacks', async () => {
    const withoutLast = discovery.migrations.filter((m) => m.name !== 'CheckpointEventId1732900000010');
    expect(withoutLast).toHaveLength(discovery.migrations.length - 1);
    const db = await open({ url: await fresh(), schema: 'discovery', migrations: withoutLast, entities: discovery.entities });
    const pending = await pendingSchemaChanges(db);
    expect(pending).toEqual([expect.stringMatching(/ALTER TABLE "discovery"\."checkpoints" ADD "last_event_id" text/)]);
  });
});
