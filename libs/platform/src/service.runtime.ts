import type { Logger } from 'pino';
import type { EventBus } from './event-bus.port';
import { stopInOrder } from './bounded-stop';
import { describeFailure } from './failure.reason';
import { createLogger } from './logger';
import { KafkaEventBus } from './kafka-event-bus';

/** The Kafka bus every standalone service uses; refusing to start without brokers beats a silent in-process bus. */
export function kafkaBusFrom(brokers: string[], clientId: string, logger: Logger): EventBus {
  if (brokers.length === 0) throw new Error('KAFKA_BROKERS is required when a service runs on its own (npm start runs all four with an in-process bus)');
  return new KafkaEventBus({ brokers, clientId, logger });
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
    stopOnSignals(logger, () =>
      stopInOrder(logger, [
        { name: entry.name, stop: () => service.stop() },
        { name: 'event bus', stop: () => bus.close() },
      ]),
    );
  } catch (error) {
    failBoot(logger, error);
  }
}
