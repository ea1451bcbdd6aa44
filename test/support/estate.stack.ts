import { createLogger, KafkaEventBus, PostgresEventBus, type EventBus, type Logger } from '@estate/platform';
import { loadAuditConfig } from '../../apps/audit/src/config';
import { startAudit } from '../../apps/audit/src/audit.app';
import { loadDiscoveryConfig } from '../../apps/discovery/src/config';
import { startDiscovery } from '../../apps/discovery/src/discovery.app';
import { loadEdgeConfig } from '../../apps/mcp-edge/src/config';
import { startEdge } from '../../apps/mcp-edge/src/edge.app';
import { loadRegistryConfig } from '../../apps/registry/src/config';
import { startRegistry } from '../../apps/registry/src/registry.app';
import { TEST_SECRET } from './estate.harness';
import { createTestDatabase, kafkaBrokers, randomTopicPrefix } from './infra';

export type EdgeHandle = Awaited<ReturnType<typeof startEdge>>;

/** Registry, discovery and (optionally) audit in this process on real Kafka (or the PostgreSQL log) and a fresh database. */
export interface EstateServices {
  env: Record<string, string>;
  logger: Logger;
  bus: EventBus;
  registryUrl: string;
  discoveryUrl: string;
  auditUrl?: string;
  /** Starts an edge on the same topics; `extra` overrides its environment. Stopped with the rest. */
  startEdge(extra?: Record<string, string>): Promise<EdgeHandle>;
  /** Runs `stop` when the stack stops (last registered, first run). */
  onStop(stop: () => Promise<void>): void;
  stop(): Promise<void>;
}

/** `databaseUrl`: a PostgreSQL of the caller's own (one it may stop); else a fresh database on the shared one. */
export async function startEstateServices(options: {
  name: string; audit?: boolean; brokers?: string[]; env?: Record<string, string>; databaseUrl?: string;
  /** `postgres`: the durable log in the test database instead of Kafka. */
  bus?: 'kafka' | 'postgres';
}): Promise<EstateServices> {
  const onPostgres = options.bus === 'postgres';
  const logger = createLogger(options.name, 'error');
  const stops: Array<() => Promise<void>> = [];
  const db = options.databaseUrl ? { url: options.databaseUrl } : await createTestDatabase();
  if ('drop' in db) stops.push(db.drop);
  const env = {
    ESTATE_JWT_SECRET: TEST_SECRET,
    ESTATE_TOPIC_PREFIX: randomTopicPrefix(),
    KAFKA_BROKERS: onPostgres ? '' : (options.brokers ?? kafkaBrokers()).join(','),
    ESTATE_REGISTRY_PORT: '0', ESTATE_DISCOVERY_PORT: '0', ESTATE_AUDIT_PORT: '0', ESTATE_EDGE_PORT: '0',
    ESTATE_DISCOVERY_GROUP: `discovery-${Date.now()}`, ESTATE_AUDIT_GROUP: `audit-${Date.now()}`,
    ...options.env,
  };
  const bus: EventBus = onPostgres
    ? new PostgresEventBus({ url: db.url, logger })
    : new KafkaEventBus({ brokers: options.brokers ?? kafkaBrokers(), clientId: options.name, logger });
  stops.push(() => bus.close());
  const registry = await startRegistry({ ...loadRegistryConfig(env), databaseUrl: db.url }, bus, logger);
  const discoveryConfig = loadDiscoveryConfig(env);
  const discovery = await startDiscovery({ ...discoveryConfig, registryUrl: discoveryConfig.registryUrl ?? registry.url, databaseUrl: db.url }, bus, logger);
  stops.push(registry.stop, discovery.stop);
  const audit = options.audit ? await startAudit({ ...loadAuditConfig(env), databaseUrl: db.url }, bus, logger) : undefined;
  if (audit) stops.push(audit.stop);
  return {
    env,
    logger,
    bus,
    registryUrl: registry.url,
    discoveryUrl: discovery.url,
    auditUrl: audit?.url,
    startEdge: async (extra = {}) => {
      const edge = await startEdge(loadEdgeConfig({ ...env, ...extra }), bus, logger);
      stops.push(edge.stop);
      return edge;
    },
    onStop: (stop) => void stops.push(stop),
    stop: async () => {
      for (const stop of stops.reverse()) await stop().catch(() => undefined);
    },
  };
}
