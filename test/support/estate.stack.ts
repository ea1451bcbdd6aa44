import { createLogger, type EventBus, type Logger } from '@estate/platform';
import { composeEstate, type EstateService, type RunningEdge } from '../../apps/estate/src/estate.composition';
import { TEST_SECRET } from './estate.harness';
import { createTestDatabase, kafkaBrokers, randomTopicPrefix } from './infra';

export type EdgeHandle = RunningEdge;

/** Registry, discovery and (optionally) audit in this process on real Kafka (or the PostgreSQL log) and a fresh database. */
export interface EstateServices {
  env: Record<string, string>;
  logger: Logger;
  bus: EventBus;
  registryUrl: string;
  discoveryUrl: string;
  auditUrl?: string;
  consoleUrl?: string;
  /** Starts an edge on the same topics; `extra` overrides its environment. Stopped with the rest. */
  startEdge(extra?: Record<string, string>): Promise<EdgeHandle>;
  /** Runs `stop` when the stack stops (last registered, first run). */
  onStop(stop: () => Promise<void>): void;
  stop(): Promise<void>;
}

/** The environment of a test estate: the shared secret, random topics and groups, ports the OS picks. */
export function testEstateEnv(options: { kafka?: string[] | false; env?: Record<string, string> } = {}): Record<string, string> {
  const suffix = `${Date.now()}-${Math.floor(Math.random() * 1e6)}`;
  return {
    ESTATE_JWT_SECRET: TEST_SECRET,
    ESTATE_TOPIC_PREFIX: randomTopicPrefix(),
    KAFKA_BROKERS: options.kafka === false ? '' : (options.kafka ?? kafkaBrokers()).join(','),
    ESTATE_REGISTRY_PORT: '0', ESTATE_DISCOVERY_PORT: '0', ESTATE_AUDIT_PORT: '0', ESTATE_EDGE_PORT: '0', ESTATE_CONSOLE_PORT: '0',
    ESTATE_DISCOVERY_GROUP: `discovery-${suffix}`, ESTATE_AUDIT_GROUP: `audit-${suffix}`, ESTATE_EDGE_GROUP: `edge-${suffix}`,
    ...options.env,
  };
}

/** `databaseUrl`: a PostgreSQL of the caller's own (one it may stop); else a fresh database on the shared one. */
export async function startEstateServices(options: {
  name: string; audit?: boolean; brokers?: string[]; env?: Record<string, string>; databaseUrl?: string;
  /** The web console too, relaying to these services. */
  console?: boolean;
  /** `postgres`: the durable log in the test database instead of Kafka. */
  bus?: 'kafka' | 'postgres';
}): Promise<EstateServices> {
  // ESTATE_TEST_LOG_LEVEL (error): more of the services' log on stderr, to follow a failing run.
  const logger = createLogger(options.name, process.env.ESTATE_TEST_LOG_LEVEL ?? 'error');
  const stops: Array<() => Promise<void>> = [];
  const db = options.databaseUrl ? { url: options.databaseUrl } : await createTestDatabase();
  if ('drop' in db) stops.push(db.drop);
  const env = testEstateEnv({ kafka: options.bus === 'postgres' ? false : options.brokers, env: options.env });
  const services: EstateService[] = ['registry', 'discovery', ...(options.audit ? ['audit' as const] : []), ...(options.console ? ['console' as const] : [])];
  const estate = await composeEstate({ env, databaseUrl: db.url, logger, services }).catch(async (error: unknown) => {
    for (const stop of stops) await stop().catch(() => undefined);
    throw error;
  });
  stops.push(estate.stop);
  return {
    env,
    logger,
    bus: estate.bus,
    registryUrl: estate.registry?.url ?? '',
    discoveryUrl: estate.discovery?.url ?? '',
    auditUrl: estate.audit?.url,
    consoleUrl: estate.console?.url,
    startEdge: (extra = {}) => estate.addEdge(extra),
    onStop: (stop) => void stops.push(stop),
    stop: async () => {
      for (const stop of stops.reverse()) await stop().catch(() => undefined);
    },
  };
}
