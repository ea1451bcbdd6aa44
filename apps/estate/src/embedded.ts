import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import {
  InMemoryEventBus, KafkaEventBus, startEmbeddedPostgres, type EmbeddedDatabase, type Env, type EventBus, type Logger,
} from '@estate/platform';
import { loadAuditConfig } from '../../audit/src/config';
import { startAudit } from '../../audit/src/audit.app';
import { loadDiscoveryConfig } from '../../discovery/src/config';
import { startDiscovery } from '../../discovery/src/discovery.app';
import { loadEdgeConfig } from '../../mcp-edge/src/config';
import { startEdge } from '../../mcp-edge/src/edge.app';
import { loadRegistryConfig } from '../../registry/src/config';
import { startRegistry } from '../../registry/src/registry.app';
import type { EmbeddedConfig } from './config';

export interface EmbeddedEstate {
  urls: { edge: string; registry: string; discovery: string; audit: string };
  secret?: string;
  bus: 'kafka' | 'in-process';
  database: 'embedded' | 'external';
  stop(): Promise<void>;
}

/** A development secret kept in the data directory, so tokens survive a restart. */
async function devSecret(dataDir: string): Promise<string> {
  const file = path.join(dataDir, 'jwt-secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const secret = randomBytes(32).toString('base64url');
  await writeFile(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}

/**
 * All four services in one process: embedded PostgreSQL unless DATABASE_URL is set, an
 * in-process event bus unless KAFKA_BROKERS is set. Same code and flow as the full stack.
 */
export async function startEmbedded(env: Env, embedded: EmbeddedConfig, logger: Logger): Promise<EmbeddedEstate> {
  await mkdir(embedded.dataDir, { recursive: true });
  const authFromEnv = env.ESTATE_AUTH === 'none' || env.ESTATE_JWT_SECRET || env.ESTATE_JWKS_URL;
  const secret = authFromEnv ? undefined : await devSecret(embedded.dataDir);
  const effective: Env = secret ? { ...env, ESTATE_JWT_SECRET: secret } : env;
  const configs = {
    registry: loadRegistryConfig(effective),
    discovery: loadDiscoveryConfig(effective),
    edge: loadEdgeConfig(effective),
    audit: loadAuditConfig(effective),
  };
  let database: EmbeddedDatabase | undefined;
  const databaseUrl = configs.registry.databaseUrl ?? (database = await startEmbeddedPostgres(path.join(embedded.dataDir, 'pg'), logger, embedded.postgresPort)).url;
  const bus: EventBus = configs.registry.kafkaBrokers.length > 0
    ? new KafkaEventBus({ brokers: configs.registry.kafkaBrokers, clientId: 'estate', logger })
    : new InMemoryEventBus();
  const registry = await startRegistry({ ...configs.registry, databaseUrl }, bus, logger.child({ service: 'registry' }));
  // Discovery rebuilds from the registry's event store when the log is incomplete.
  const discovery = await startDiscovery({ ...configs.discovery, registryUrl: configs.discovery.registryUrl ?? registry.url, databaseUrl }, bus, logger.child({ service: 'discovery' }));
  const audit = await startAudit({ ...configs.audit, databaseUrl }, bus, logger.child({ service: 'audit' }));
  const edge = await startEdge(configs.edge, bus, logger.child({ service: 'mcp-edge' }));
  return {
    urls: { edge: edge.mcpUrl, registry: registry.url, discovery: discovery.url, audit: audit.url },
    secret,
    bus: configs.registry.kafkaBrokers.length > 0 ? 'kafka' : 'in-process',
    database: database ? 'embedded' : 'external',
    stop: async () => {
      await edge.stop();
      await audit.stop();
      await discovery.stop();
      await registry.stop();
      await bus.close();
      await database?.stop();
    },
  };
}
