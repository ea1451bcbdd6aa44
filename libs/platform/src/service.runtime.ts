import type { Logger } from 'pino';
import type { EventBus } from './event-bus.port';
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
