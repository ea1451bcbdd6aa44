import { busFrom, freePort, stopInOrder, stopTakingRequests, type Env, type EventBus, type Logger, type StopStep } from '@estate/platform';
import type { INestApplicationContext } from '@nestjs/common';
import { listeningUrl, startAudit, type AuditOptions, type RunningAudit } from '../../audit/src/audit.app';
import { loadAuditConfig } from '../../audit/src/config';
import { startConsole, type RunningConsole } from '../../console/src/console.app';
import { loadConsoleConfig } from '../../console/src/config';
import { loadDiscoveryConfig } from '../../discovery/src/config';
import { startDiscovery, type RunningDiscovery } from '../../discovery/src/discovery.app';
import { loadEdgeConfig } from '../../mcp-edge/src/config';
import { startEdge, type RunningEdge } from '../../mcp-edge/src/edge.app';
import { loadRegistryConfig } from '../../registry/src/config';
import { startRegistry, type RunningService } from '../../registry/src/registry.app';

/** What test stacks hold of the parts, so they import nothing from the services' apps. */
export type { RunningAudit, RunningConsole, RunningDiscovery, RunningEdge, RunningService };

export type EstateService = 'registry' | 'discovery' | 'audit' | 'edge' | 'console';

/** Start order; they stop in the reverse order. */
export const ESTATE_SERVICES: readonly EstateService[] = ['registry', 'discovery', 'audit', 'edge', 'console'];

export interface EstateCompositionConfig {
  /** What every service's config loader reads: ports, topic prefix, auth, consumer groups, KAFKA_BROKERS. */
  env: Env;
  /** The PostgreSQL the registry, discovery and audit keep their schemas in (and the durable log, without Kafka). */
  databaseUrl: string;
  logger: Logger;
  /** The services to start (default: all five). */
  services?: readonly EstateService[];
  /** A bus shared with the caller, who closes it; without one the estate builds its own (Kafka, or the log in PostgreSQL) and closes it last. */
  bus?: EventBus;
  /** Settings for one service only, over `env` (an edge opened with ESTATE_AUTH=none while the registry keeps its JWTs). */
  overrides?: Partial<Record<EstateService, Env>>;
  /** Tests shorten the audit stream's heartbeat. */
  audit?: AuditOptions;
}

export interface ComposedEstate {
  bus: EventBus;
  registry?: RunningService;
  discovery?: RunningDiscovery;
  audit?: RunningAudit;
  /** The first edge; `addEdge` starts more on the same topics. */
  edge?: RunningEdge;
  console?: RunningConsole;
  /** Another edge beside the others (its own replica group), with settings over the edge's; stopped with the estate. */
  addEdge(overrides?: Env): Promise<RunningEdge>;
  /** Every service's HTTP server takes no new request from now on (the first thing `stop` does). */
  stopTakingRequests(): void;
  /** Every service (newest first), then the bus when the estate built it; each bounded by stopInOrder. */
  stop(): Promise<void>;
}

/**
 * The one composition of the estate: `npm start` (embedded.ts) and every test stack build the
 * services through it, so their wiring cannot drift apart. Each service is its own Nest
 * application (its module binds the ports); they share the bus and the database. Discovery
 * rebuilds from the registry started here unless ESTATE_REGISTRY_URL names another, and the
 * console relays to the services started here. A failed start stops what already started.
 */
export async function composeEstate(config: EstateCompositionConfig): Promise<ComposedEstate> {
  const wanted = new Set(config.services ?? ESTATE_SERVICES);
  if (wanted.has('audit') && wanted.has('registry')) config = { ...config, env: await withAuditAddress(config.env) };
  const envOf = (service: EstateService): Env => ({ ...config.env, ...config.overrides?.[service] });
  const child = (service: string) => config.logger.child({ service });
  const { databaseUrl } = config;
  const bus = config.bus ?? busFrom({ ...loadRegistryConfig(config.env), databaseUrl }, 'estate', child('bus'));
  const steps: StopStep[] = [];
  const apps: INestApplicationContext[] = [];
  const started = <T extends { app: INestApplicationContext; stop(): Promise<void> }>(name: string, running: T): T => {
    steps.unshift({ name, stop: () => running.stop() });
    apps.push(running.app);
    return running;
  };
  // At once, before any part stops: a service stopped late (the registry) must not take requests while the others stop.
  const stopRequests = () => apps.forEach((app) => stopTakingRequests(app));
  // A bus of its own: every service's consumers leave together first, then the services stop in order.
  const ownBus = config.bus === undefined;
  const stop = () => stopInOrder(config.logger, [
    { name: 'requests', stop: async () => stopRequests() },
    ...(ownBus && bus.stopConsumers ? [{ name: 'consumers', stop: () => bus.stopConsumers?.() ?? Promise.resolve() }] : []),
    ...steps,
    ...(ownBus ? [{ name: 'event bus', stop: () => bus.close() }] : []),
  ]);
  // Every edge started here records spent 2026-07-28 confirmations in the estate's database.
  const addEdge = async (overrides: Env = {}) => started('mcp-edge', await startEdge(loadEdgeConfig({ ESTATE_EDGE_DATABASE_URL: databaseUrl, ...envOf('edge'), ...overrides }), bus, child('mcp-edge')));
  const estate: ComposedEstate = { bus, addEdge, stopTakingRequests: stopRequests, stop };
  try {
    if (wanted.has('registry')) {
      estate.registry = started('registry', await startRegistry({ ...loadRegistryConfig(envOf('registry')), databaseUrl }, bus, child('registry')));
    }
    if (wanted.has('discovery')) {
      const discovery = loadDiscoveryConfig(envOf('discovery'));
      const registryUrl = discovery.registryUrl ?? estate.registry?.url;
      estate.discovery = started('discovery', await startDiscovery({ ...discovery, registryUrl, databaseUrl }, bus, child('discovery')));
    }
    if (wanted.has('audit')) {
      estate.audit = started('audit', await startAudit({ ...loadAuditConfig(envOf('audit')), databaseUrl }, bus, child('audit'), config.audit));
    }
    if (wanted.has('edge')) estate.edge = await addEdge();
    if (wanted.has('console')) estate.console = started('console', await startConsole(consoleConfig(envOf('console'), estate), child('console')));
    return estate;
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
}

/**
 * The registry names audit in every event it relays (`dataschema`) and in its AsyncAPI document,
 * and it starts first: without ESTATE_AUDIT_PUBLIC_URL, audit's address is settled here, before
 * either starts (a port left to the kernel, ESTATE_AUDIT_PORT=0, is chosen now), so both name the
 * address audit will listen on, not the registry's default of port 8003.
 */
export async function withAuditAddress(env: Env): Promise<Env> {
  if (env.ESTATE_AUDIT_PUBLIC_URL !== undefined) return env;
  const host = env.ESTATE_AUDIT_HOST ?? '127.0.0.1';
  const given = env.ESTATE_AUDIT_PORT;
  const port = given === '0' ? await freePort() : given === undefined || given === '' ? 8003 : Number(given);
  // A port audit's own config will refuse is left for it to say so.
  if (!Number.isInteger(port) || port < 1 || port > 65535) return env;
  return { ...env, ESTATE_AUDIT_PORT: String(port), ESTATE_AUDIT_PUBLIC_URL: listeningUrl(host, port) };
}

/** The console relays to the services this composition started, wherever their ports landed. */
function consoleConfig(env: Env, estate: ComposedEstate) {
  const config = loadConsoleConfig(env);
  return {
    ...config,
    upstreams: {
      registry: estate.registry?.url ?? config.upstreams.registry,
      discovery: estate.discovery?.url ?? config.upstreams.discovery,
      audit: estate.audit?.url ?? config.upstreams.audit,
    },
  };
}
