import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import {
  estateRecordPath, removeEstateRecord, startEmbeddedPostgres, stopInOrder, writeEstateRecord, type EmbeddedDatabase, type Env, type Logger, type StopStep,
} from '@estate/platform';
import { loadEdgeConfig } from '../../mcp-edge/src/config';
import { loadRegistryConfig } from '../../registry/src/config';
import { authChosen, type EmbeddedConfig } from './config';
import { composeEstate, withAuditAddress, type ComposedEstate } from './estate.composition';
import { startServicesThread } from './estate.threads';
import { rememberedPostgresPort, rememberPostgresPort } from './postgres-port.store';

export interface EmbeddedEstate {
  urls: { edge: string; registry: string; discovery: string; audit: string; console: string };
  secret?: string;
  /** How long the printed development tokens live: 12 h, or less when the services accept less. */
  devTokenSeconds: number;
  /** Where other processes find this estate (estate.json in the data directory). */
  recordFile: string;
  bus: 'kafka' | 'postgres';
  database: 'embedded' | 'external';
  stop(): Promise<void>;
}

const DEV_TOKEN_SECONDS = 12 * 3600;

function secretFile(dataDir: string): string {
  return path.resolve(dataDir, 'jwt-secret');
}

/** A development secret kept in the data directory, so tokens (or sealed webhook secrets) survive a restart. */
async function devSecret(dataDir: string, file = secretFile(dataDir)): Promise<string> {
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const secret = randomBytes(32).toString('base64url');
  await writeFile(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}

/** The embedded PostgreSQL, on ESTATE_PG_PORT or else on the port of its last run when still free. */
async function ownPostgres(embedded: EmbeddedConfig, logger: Logger, onLost: (reason: string) => void): Promise<EmbeddedDatabase> {
  const port = embedded.postgresPort ?? (await rememberedPostgresPort(embedded.dataDir));
  const database = await startEmbeddedPostgres(path.join(embedded.dataDir, 'pg'), logger, port, onLost);
  rememberPostgresPort(embedded.dataDir, database.url);
  return database;
}

/**
 * All four services and the console in one process: embedded PostgreSQL unless DATABASE_URL is set, a durable
 * event log in that PostgreSQL unless KAFKA_BROKERS is set. Same code and flow as the full stack.
 * While it runs, `estate.json` in the data directory lets other processes join it.
 */
export async function startEmbedded(env: Env, embedded: EmbeddedConfig, logger: Logger): Promise<EmbeddedEstate> {
  await mkdir(embedded.dataDir, { recursive: true });
  const secret = authChosen(env) ? undefined : await devSecret(embedded.dataDir);
  const webhookKey = env.ESTATE_WEBHOOK_SECRET_KEY ? undefined : await devSecret(embedded.dataDir, path.resolve(embedded.dataDir, 'webhook-secret-key'));
  const effective: Env = {
    ...env, ...(secret ? { ESTATE_JWT_SECRET: secret } : {}), ...(webhookKey ? { ESTATE_WEBHOOK_SECRET_KEY: webhookKey } : {}),
  };
  const common = loadRegistryConfig(effective);
  const edgeAuth = loadEdgeConfig(effective).auth;
  let database: EmbeddedDatabase | undefined;
  const started: { stop?: () => Promise<void> } = {};
  // Without its PostgreSQL the estate only answers 503: stop it with exit 1 and one line, so a supervisor can act.
  const lost = (reason: string) => {
    logger.fatal(`${reason}; stopping the estate (exit 1)`);
    void (started.stop?.() ?? database?.stop() ?? Promise.resolve()).catch(() => undefined).finally(() => {
      logger.flush?.();
      setTimeout(() => process.exit(1), 100);
    });
  };
  const databaseUrl = common.databaseUrl ?? (database = await ownPostgres(embedded, logger, lost)).url;
  const kafka = common.kafkaBrokers.length > 0;
  const estate = await composeServices(effective, databaseUrl, embedded, logger).catch(async (error: unknown) => {
    await database?.stop();
    throw error;
  });
  const { urls } = estate;
  writeEstateRecord(embedded.dataDir, {
    pid: process.pid, startedAt: new Date().toISOString(), databaseUrl, kafkaBrokers: kafka ? common.kafkaBrokers : undefined,
    topicPrefix: common.topicPrefix, urls,
    secretFile: secret ? secretFile(embedded.dataDir) : undefined,
  });
  const stop = () => {
    removeEstateRecord(embedded.dataDir, process.pid);
    return stopInOrder(logger, [
      // The services and the bus, newest first (estate.composition.ts).
      { name: 'estate', stop: () => estate.stop(), ms: 8000 },
      // PostgreSQL bounds its own stop (SIGINT, then SIGQUIT, then SIGKILL) and goes last.
      ...(database ? [{ name: 'postgres', stop: () => (database as EmbeddedDatabase).stop(), ms: 8000 }] : []),
    ]);
  };
  started.stop = stop;
  return {
    urls,
    secret,
    devTokenSeconds: Math.min(DEV_TOKEN_SECONDS, edgeAuth.mode === 'jwt' ? edgeAuth.maxLifetimeSeconds ?? DEV_TOKEN_SECONDS : DEV_TOKEN_SECONDS),
    recordFile: estateRecordPath(embedded.dataDir),
    bus: kafka ? 'kafka' : 'postgres',
    database: database ? 'embedded' : 'external',
    // Each part is bounded (bounded-stop.ts), so one Ctrl-C ends the process within seconds.
    stop,
  };
}

interface ComposedServices {
  urls: EmbeddedEstate['urls'];
  stop(): Promise<void>;
}

/**
 * Every service, on one thread (ESTATE_THREADS=1) or on two: the registry (HTTP, decisions,
 * appends and its relay) and the console here, discovery, audit and the edge on a second thread
 * with a bus of their own on the same log (estate.threads.ts). The second thread stops before the
 * registry, as the composition stops consumers before producers.
 */
async function composeServices(given: Env, databaseUrl: string, embedded: EmbeddedConfig, logger: Logger): Promise<ComposedServices> {
  // Chosen once for both threads: the registry (main thread) names the address audit (second thread) takes.
  const env = await withAuditAddress(given);
  if (embedded.threads === 1) {
    const estate = await composeEstate({ env, databaseUrl, logger });
    const { registry, discovery, audit, edge, console: webConsole } = estate;
    if (!registry || !discovery || !audit || !edge || !webConsole) throw new Error('the estate started without one of its services');
    return { urls: { edge: edge.mcpUrl, registry: registry.url, discovery: discovery.url, audit: audit.url, console: webConsole.url }, stop: () => estate.stop() };
  }
  const main = await composeEstate({ env, databaseUrl, logger, services: ['registry'] });
  const registry = main.registry as NonNullable<typeof main.registry>;
  const steps: StopStep[] = [{ name: 'registry', stop: () => main.stop(), ms: 4000 }];
  let rest: ComposedEstate | undefined;
  const stop = () => {
    // The registry stops last: it takes no publish from the moment the stop begins (the second thread's services stop taking requests as they are asked to stop).
    main.stopTakingRequests();
    rest?.stopTakingRequests();
    return stopInOrder(logger, [...steps]);
  };
  try {
    const second = await startServicesThread({
      env, databaseUrl, services: ['discovery', 'audit', 'edge'], logLevel: embedded.logLevel, logFormat: embedded.logFormat,
      // Discovery rebuilds from this registry unless ESTATE_REGISTRY_URL names another (as composeEstate does).
      overrides: env.ESTATE_REGISTRY_URL ? undefined : { discovery: { ESTATE_REGISTRY_URL: registry.url } },
    }, logger, (error) => {
      logger.fatal({ err: error }, 'the services thread (discovery, audit, edge) stopped unexpectedly; stopping the estate');
      void stop().finally(() => process.exit(1));
    });
    steps.unshift({ name: 'discovery, audit and edge (second thread)', stop: () => second.stop(), ms: 5000 });
    const upstreams = { ESTATE_REGISTRY_URL: registry.url, ESTATE_DISCOVERY_URL: second.urls.discovery, ESTATE_AUDIT_URL: second.urls.audit };
    const consoleApp = await composeEstate({ env, databaseUrl, logger, services: ['console'], bus: main.bus, overrides: { console: upstreams } });
    rest = consoleApp;
    steps.unshift({ name: 'console', stop: () => consoleApp.stop(), ms: 2000 });
    const webConsole = consoleApp.console as NonNullable<typeof consoleApp.console>;
    return { urls: { ...second.urls, registry: registry.url, console: webConsole.url }, stop };
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
}
