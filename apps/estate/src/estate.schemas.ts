import { BUS_ENTITIES, BUS_MIGRATIONS, type DatabaseOptions } from '@estate/platform';
import { AUDIT_ENTITIES, AUDIT_MIGRATIONS } from '../../audit/src/store/migrations';
import { EDGE_ENTITIES, EDGE_MIGRATIONS } from '../../mcp-edge/src/store/migrations';
import { DISCOVERY_ENTITIES, DISCOVERY_MIGRATIONS } from '../../discovery/src/store/migrations';
import { REGISTRY_ENTITIES, REGISTRY_MIGRATIONS } from '../../registry/src/store/migrations';

/**
 * Every schema the estate keeps in PostgreSQL, with the migrations that build it and the entities
 * that describe it. The composition root is the one place allowed to reach into each service, so
 * tools that look at the whole database (the schema drift test) take the list from here.
 */
export const ESTATE_SCHEMAS: ReadonlyArray<Pick<DatabaseOptions, 'schema' | 'migrations' | 'entities'>> = [
  { schema: 'registry', migrations: REGISTRY_MIGRATIONS, entities: REGISTRY_ENTITIES },
  { schema: 'discovery', migrations: DISCOVERY_MIGRATIONS, entities: DISCOVERY_ENTITIES },
  { schema: 'audit', migrations: AUDIT_MIGRATIONS, entities: AUDIT_ENTITIES },
  { schema: 'edge', migrations: EDGE_MIGRATIONS, entities: EDGE_ENTITIES },
  { schema: 'bus', migrations: BUS_MIGRATIONS, entities: BUS_ENTITIES },
];
