import type { Logger } from 'pino';
import type { CommonConfig, Env } from './env.reader';
import type { EventBus } from './event-bus.port';
import { joinEmbeddedEstate, type JoinedEnv } from './estate.record';
import { stopInOrder } from './bounded-stop';
import { describeFailure } from './failure.reason';
import { createLogger } from './logger';
import { KafkaEventBus } from './kafka-event-bus';
import { PostgresEventBus } from './postgres-bus/postgres-event-bus';
import { startTracing } from './tracing/tracing.sdk';

/**
 * The bus a process started on its own uses: Kafka when brokers are given, otherwise the durable
 * log in PostgreSQL that `npm start` keeps (joinEmbeddedEstate found its database).
 */
export function busFrom(config: Pick<CommonConfig, 'bus' | 'kafkaBrokers' | 'databaseUrl'>, clientId: string, logger: Logger): EventBus {
  if (config.bus === 'kafka') return new KafkaEventBus({ brokers: config.kafkaBrokers, clientId, logger });
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
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal while stopping; exiting now');
      exitAfterFlush(logger, 1);
      return;
    }
    stopping = true;
    const started = Date.now();
    logger.info({ signal }, 'stopping');
    setTimeout(() => {
      logger.error({ ms: deadlineMs }, `stop overran ${deadlineMs} ms; exiting without waiting for it`);
      exitAfterFlush(logger, 1);
    }, deadlineMs);
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
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
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

export interface ServiceEntry<C extends ServiceConfig> {
  name: string;
  /** The process environment, read once by the entry point. */
  env: Env;
  load: (env: Env) => C;
  start: (config: C & { databaseUrl: string }, bus: EventBus, logger: Logger) => Promise<{ stop(): Promise<void> }>;
}

/** The entry point of a standalone service: config, logger, bus (Kafka or the embedded estate's log), start, stop on signals. */
export async function runService<C extends ServiceConfig>(entry: ServiceEntry<C>): Promise<void> {
  let logger = createLogger(entry.name);
  try {
    const config = entry.load(joinEstateOrKafka(entry.env, logger));
    logger = createLogger(entry.name, config.logLevel, { format: config.logFormat });
    if (!config.databaseUrl) throw new Error('DATABASE_URL is required');
    const tracing = startTracing(entry.env, `estate-${entry.name}`);
    const bus = busFrom(config, `estate-${entry.name}`, logger);
    const service = await entry.start({ ...config, databaseUrl: config.databaseUrl }, bus, logger);
    stopOnSignals(logger, () =>
      stopInOrder(logger, [
        { name: entry.name, stop: () => service.stop() },
        { name: 'event bus', stop: () => bus.close() },
        ...(tracing ? [{ name: 'tracing', stop: () => tracing.shutdown() }] : []),
      ]),
    );
  } catch (error) {
    failBoot(logger, error);
  }
}
