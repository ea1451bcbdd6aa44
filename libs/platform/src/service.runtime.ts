import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { CommonConfig, Env } from './env.reader';
import type { EventBus } from './event-bus.port';
import { joinEmbeddedEstate, type JoinedEnv } from './estate.record';
import type { INestApplicationContext } from '@nestjs/common';
import type { StopStep } from './bounded-stop';
import { describeFailure } from './failure.reason';
import { stopTakingRequests } from './http/http-app';
import { createLogger } from './logger';
import { KafkaEventBus } from './kafka-event-bus';
import { PostgresEventBus } from './postgres-bus/postgres-event-bus';
import { startTracing } from './tracing/tracing.sdk';

/**
 * The bus a process started on its own uses: Kafka when brokers are given, otherwise the durable
 * log in PostgreSQL that `npm start` keeps (joinEmbeddedEstate found its database).
 */
export function busFrom(config: Pick<CommonConfig, 'bus' | 'kafkaBrokers' | 'databaseUrl'>, clientId: string, logger: Logger): EventBus {
  // One client id per copy (host and pid): with several copies in a group, the broker's member
  // list (kafka-consumer-groups --describe) then says which copy holds which partition.
  if (config.bus === 'kafka') return new KafkaEventBus({ brokers: config.kafkaBrokers, clientId: `${clientId}-${hostname()}-${process.pid}`, logger });
  if (!config.databaseUrl) throw new Error('the PostgreSQL event log needs DATABASE_URL (or a running npm start to join)');
  return new PostgresEventBus({ url: config.databaseUrl, logger });
}

/** Joins the running embedded estate when no Kafka is configured, and says so on stderr. */
export function joinEstateOrKafka(env: Env, logger: Logger): Env {
  const joined: JoinedEnv = joinEmbeddedEstate(env);
  if (joined.joined) {
    const bus = (joined.joined.kafkaBrokers ?? []).length > 0 ? 'kafka' : 'postgres';
    logger.info({ estate: joined.joined.file, estatePid: joined.joined.pid, bus }, `joining the embedded estate (${bus === 'kafka' ? 'its Kafka' : 'its durable event log in PostgreSQL'})`);
  }
  return joined.env;
}

/** How long a stop may take before the process exits without it. */
export const STOP_DEADLINE_MS = 10_000;

/**
 * Runs `stop` once on SIGINT/SIGTERM, then exits 0. A terminal sends Ctrl-C to the whole
 * process group, so one signal must be enough: a stop that overruns `deadlineMs` is abandoned
 * with an error line (exit 1), and a second signal exits at once.
 */
export function stopOnSignals(logger: Logger, stop: () => Promise<void>, deadlineMs = STOP_DEADLINE_MS): void {
  guardShutdown(logger, deadlineMs, () => {
    const started = Date.now();
    stop().then(
      () => {
        logger.info({ ms: Date.now() - started }, 'stopped');
        exitAfterFlush(logger, 0);
      },
      (error: unknown) => {
        logger.error({ err: error }, `unclean stop: ${describeFailure(error)}`);
        exitAfterFlush(logger, 1);
      },
    );
  });
}

/**
 * The bounds of a stop that someone else runs (Nest's shutdown hooks, `enableShutdownHooks`):
 * Nest waits for its hooks however long they take and ignores a second signal, so this arms
 * the deadline on the first signal and exits at once on the second.
 */
export function guardShutdown(logger: Logger, deadlineMs = STOP_DEADLINE_MS, onFirst: () => void = () => undefined): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal while stopping; exiting now');
      exitAfterFlush(logger, 1);
      return;
    }
    stopping = true;
    logger.info({ signal }, 'stopping');
    setTimeout(() => {
      logger.error({ ms: deadlineMs }, `stop overran ${deadlineMs} ms; exiting without waiting for it`);
      exitAfterFlush(logger, 1);
    }, deadlineMs);
    onFirst();
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  // A hangup (the terminal or the client that spawned a stdio server went away) stops cleanly too,
  // instead of killing the process with its pending call records.
  process.on('SIGHUP', handler);
}

/**
 * Holds SIGINT and SIGTERM while a process starts (its HTTP servers may answer, and be signalled,
 * before the rest is up): without a listener the signal would kill it outright. The returned
 * release stops holding and sends a held signal again, to the handlers wired by then.
 */
export function holdStopSignals(): () => void {
  let held: NodeJS.Signals | undefined;
  const hold = (signal: NodeJS.Signals) => void (held ??= signal);
  process.on('SIGINT', hold).on('SIGTERM', hold);
  return () => {
    process.off('SIGINT', hold).off('SIGTERM', hold);
    if (held) process.kill(process.pid, held);
  };
}

/** Boot failures are printed (to stderr) with every configuration problem, then the process exits 1. */
export function failBoot(logger: Logger, error: unknown): void {
  logger.fatal({ err: error }, describeFailure(error));
  exitAfterFlush(logger, 1);
}

/** The logger writes asynchronously; give its last lines a moment to reach stderr. */
function exitAfterFlush(logger: Logger, code: number): void {
  process.exitCode = code;
  logger.flush?.();
  setTimeout(() => process.exit(code), 100).unref();
}

type ServiceConfig = CommonConfig & { logLevel: string };

/** What a standalone entry hands its service besides the bus: resources the app closes last. */
export interface StandaloneOptions {
  owned: StopStep[];
}

export interface ServiceEntry<C extends ServiceConfig> {
  name: string;
  /** The process environment, read once by the entry point. */
  env: Env;
  load: (env: Env) => C;
  /** False for a service without tables of its own (the edge). */
  needsDatabase?: boolean;
  /** Builds the service's Nest application on a bus of its own (`undefined`: the module builds it from the config). */
  start: (config: C & { databaseUrl: string }, bus: undefined, logger: Logger, options: StandaloneOptions) => Promise<{ app: INestApplicationContext }>;
}

/**
 * The entry point of a standalone service: config, logger, tracing, the service's Nest
 * application (its module builds the bus: Kafka or the embedded estate's log), and Nest's
 * shutdown hooks on SIGINT/SIGTERM, bounded by `guardShutdown`.
 */
export async function runService<C extends ServiceConfig>(entry: ServiceEntry<C>): Promise<void> {
  let logger = createLogger(entry.name);
  try {
    const config = entry.load(joinEstateOrKafka(entry.env, logger));
    logger = createLogger(entry.name, config.logLevel, { format: config.logFormat });
    if (entry.needsDatabase !== false && !config.databaseUrl) throw new Error('DATABASE_URL is required');
    const tracing = startTracing(entry.env, `estate-${entry.name}`);
    const owned = tracing ? [{ name: 'tracing', stop: () => tracing.shutdown() }] : [];
    // The HTTP server answers before the start has finished (consumers subscribe after it listens):
    // a SIGTERM in that window is held and sent again once Nest's shutdown hooks are in place.
    const release = holdStopSignals();
    const { app } = await entry.start({ ...config, databaseUrl: config.databaseUrl ?? '' }, undefined, logger, { owned });
    // Wired first, so the HTTP server takes no new request before Nest's shutdown hooks begin (they close it last).
    guardShutdown(logger, STOP_DEADLINE_MS, () => stopTakingRequests(app));
    // process.exit(0) once the hooks ran (1 if one threw): the pino destination flushes on exit.
    app.enableShutdownHooks(['SIGINT', 'SIGTERM'], { useProcessExit: true });
    release();
  } catch (error) {
    failBoot(logger, error);
  }
}
