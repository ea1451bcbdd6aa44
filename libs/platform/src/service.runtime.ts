import type { Logger } from 'pino';
import type { EventBus } from './event-bus.port';
import { createLogger } from './logger';
import { KafkaEventBus } from './kafka-event-bus';

/** The Kafka bus every standalone service uses; refusing to start without brokers beats a silent in-process bus. */
export function kafkaBusFrom(brokers: string[], clientId: string, logger: Logger): EventBus {
  if (brokers.length === 0) throw new Error('KAFKA_BROKERS is required when a service runs on its own (npm start runs all four with an in-process bus)');
  return new KafkaEventBus({ brokers, clientId, logger });
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

export interface ServiceEntry<C extends { logLevel: string; kafkaBrokers: string[]; databaseUrl?: string }> {
  name: string;
  load: () => C;
  start: (config: C & { databaseUrl: string }, bus: EventBus, logger: Logger) => Promise<{ stop(): Promise<void> }>;
}

/** The entry point of a standalone service: config, logger, Kafka, start, stop on signals. */
export async function runService<C extends { logLevel: string; kafkaBrokers: string[]; databaseUrl?: string }>(entry: ServiceEntry<C>): Promise<void> {
  let logger = createLogger(entry.name);
  try {
    const config = entry.load();
    logger = createLogger(entry.name, config.logLevel);
    if (!config.databaseUrl) throw new Error('DATABASE_URL is required');
    const bus = kafkaBusFrom(config.kafkaBrokers, `estate-${entry.name}`, logger);
    const service = await entry.start({ ...config, databaseUrl: config.databaseUrl }, bus, logger);
    stopOnSignals(logger, async () => {
      await service.stop();
      await bus.close();
    });
  } catch (error) {
    failBoot(logger, error);
  }
}
