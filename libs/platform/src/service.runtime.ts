import type { Logger } from 'pino';
import type { CommonConfig, Env } from './env.reader';
import type { EventBus } from './event-bus.port';
import { joinEmbeddedEstate, type JoinedEnv } from './estate.record';
import { createLogger } from './logger';
import { KafkaEventBus } from './kafka-event-bus';
import { PostgresEventBus } from './postgres-bus/postgres-event-bus';

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

/** Runs `stop` once on SIGINT/SIGTERM, then exits. */
export function stopOnSignals(logger: Logger, stop: () => Promise<void>): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping');
    stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'unclean stop');
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', handler);
  process.once('SIGTERM', handler);
}

/** Boot failures are printed (to stderr) with every configuration problem, then the process exits 1. */
export function failBoot(logger: Logger, error: unknown): void {
  logger.fatal({ err: error }, error instanceof Error ? error.message : String(error));
  logger.flush?.();
  process.exitCode = 1;
  setTimeout(() => process.exit(1), 100);
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
    logger = createLogger(entry.name, config.logLevel);
    if (!config.databaseUrl) throw new Error('DATABASE_URL is required');
    const bus = busFrom(config, `estate-${entry.name}`, logger);
    const service = await entry.start({ ...config, databaseUrl: config.databaseUrl }, bus, logger);
    stopOnSignals(logger, async () => {
      await service.stop();
      await bus.close();
    });
  } catch (error) {
    failBoot(logger, error);
  }
}
