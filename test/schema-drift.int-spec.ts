import type { DataSource } from 'typeorm';
import { BUS_ENTITIES, BUS_MIGRATIONS, openDatabase, type DatabaseOptions } from '@estate/platform';
import { AUDIT_ENTITIES, AUDIT_MIGRATIONS } from '../apps/audit/src/store/migrations';
import { DISCOVERY_ENTITIES, DISCOVERY_MIGRATIONS } from '../apps/discovery/src/store/migrations';
import { REGISTRY_ENTITIES, REGISTRY_MIGRATIONS } from '../apps/registry/src/store/migrations';
import { createTestDatabase } from './support/infra';

/**
 * The migrations create the schema; the entities describe it to TypeORM. Each service's
 * migrations run on a fresh database (all four schemas side by side, as in the embedded mode),
 * then TypeORM is asked what SQL would make the database match the entities: none, or the two
 * have drifted apart. What TypeORM does not model is outside this check: triggers and their
 * functions, seeded rows, and the column order of an index (it compares an index's name and
 * column set).
 */
const SCHEMAS: Array<Omit<DatabaseOptions, 'url'>> = [
  { schema: 'registry', migrations: REGISTRY_MIGRATIONS, entities: REGISTRY_ENTITIES },
  { schema: 'discovery', migrations: DISCOVERY_MIGRATIONS, entities: DISCOVERY_ENTITIES },
  { schema: 'audit', migrations: AUDIT_MIGRATIONS, entities: AUDIT_ENTITIES },
  { schema: 'bus', migrations: BUS_MIGRATIONS, entities: BUS_ENTITIES },
];

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
    const withoutLast = DISCOVERY_MIGRATIONS.filter((m) => m.name !== 'CheckpointEventId1732900000010');
    expect(withoutLast).toHaveLength(DISCOVERY_MIGRATIONS.length - 1);
    const db = await open({ url: await fresh(), schema: 'discovery', migrations: withoutLast, entities: DISCOVERY_ENTITIES });
    const pending = await pendingSchemaChanges(db);
    expect(pending).toEqual([expect.stringMatching(/ALTER TABLE "discovery"\."checkpoints" ADD "last_event_id" text/)]);
  });
});
