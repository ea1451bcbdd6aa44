import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import {
  estateRecordPath, removeEstateRecord, startEmbeddedPostgres, stopInOrder, writeEstateRecord, type EmbeddedDatabase, type Env, type Logger,
} from '@estate/platform';
import { loadEdgeConfig } from '../../mcp-edge/src/config';
import { loadRegistryConfig } from '../../registry/src/config';
import type { EmbeddedConfig } from './config';
import { composeEstate } from './estate.composition';
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
async function ownPostgres(embedded: EmbeddedConfig, logger: Logger): Promise<EmbeddedDatabase> {
  const port = embedded.postgresPort ?? (await rememberedPostgresPort(embedded.dataDir));
  const database = await startEmbeddedPostgres(path.join(embedded.dataDir, 'pg'), logger, port);
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
  const authFromEnv = env.ESTATE_AUTH === 'none' || env.ESTATE_JWT_SECRET || env.ESTATE_JWKS_URL;
  const secret = authFromEnv ? undefined : await devSecret(embedded.dataDir);
  const webhookKey = env.ESTATE_WEBHOOK_SECRET_KEY ? undefined : await devSecret(embedded.dataDir, path.resolve(embedded.dataDir, 'webhook-secret-key'));
  const effective: Env = {
    ...env, ...(secret ? { ESTATE_JWT_SECRET: secret } : {}), ...(webhookKey ? { ESTATE_WEBHOOK_SECRET_KEY: webhookKey } : {}),
  };
  const common = loadRegistryConfig(effective);
  const edgeAuth = loadEdgeConfig(effective).auth;
  let database: EmbeddedDatabase | undefined;
  const databaseUrl = common.databaseUrl ?? (database = await ownPostgres(embedded, logger)).url;
  const kafka = common.kafkaBrokers.length > 0;
  const estate = await composeEstate({ env: effective, databaseUrl, logger }).catch(async (error: unknown) => {
    await database?.stop();
    throw error;
  });
  const { registry, discovery, audit, edge, console: webConsole } = estate;
  if (!registry || !discovery || !audit || !edge || !webConsole) throw new Error('the estate started without one of its services');
  const urls = { edge: edge.mcpUrl, registry: registry.url, discovery: discovery.url, audit: audit.url, console: webConsole.url };
  writeEstateRecord(embedded.dataDir, {
    pid: process.pid, startedAt: new Date().toISOString(), databaseUrl, kafkaBrokers: kafka ? common.kafkaBrokers : undefined,
    topicPrefix: common.topicPrefix, urls,
    secretFile: secret ? secretFile(embedded.dataDir) : undefined,
  });
  return {
    urls,
    secret,
    devTokenSeconds: Math.min(DEV_TOKEN_SECONDS, edgeAuth.mode === 'jwt' ? edgeAuth.maxLifetimeSeconds ?? DEV_TOKEN_SECONDS : DEV_TOKEN_SECONDS),
    recordFile: estateRecordPath(embedded.dataDir),
    bus: kafka ? 'kafka' : 'postgres',
    database: database ? 'embedded' : 'external',
    // Each part is bounded (bounded-stop.ts), so one Ctrl-C ends the process within seconds.
    stop: () => {
      removeEstateRecord(embedded.dataDir, process.pid);
      return stopInOrder(logger, [
        // The services and the bus, newest first (estate.composition.ts).
        { name: 'estate', stop: () => estate.stop(), ms: 8000 },
        // PostgreSQL bounds its own stop (SIGINT, then SIGQUIT, then SIGKILL) and goes last.
        ...(database ? [{ name: 'postgres', stop: () => (database as EmbeddedDatabase).stop(), ms: 8000 }] : []),
      ]);
    },
  };
}
