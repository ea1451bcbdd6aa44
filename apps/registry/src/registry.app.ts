import { startConsumers, startHttpApp, type EventBus, type Logger, type StopStep } from '@estate/platform';
import type { INestApplication, Type } from '@nestjs/common';
import type { RegistryConfig } from './config';
import { RegistryModule } from './registry.module';
import { OutboxRelay } from './store/outbox.relay';

export interface RunningService {
  app: INestApplication;
  url: string;
  /** Nest's close: the shutdown hooks of registry.lifecycle.ts. */
  stop(): Promise<void>;
}

/**
 * The registry as a Nest application listening on its port (RegistryModule binds the parts).
 * `bus` undefined: the module builds its own from the config; `owned` are closed after it.
 * `useCase` hands a test or bench one of the module's use cases (or the reads) as bound.
 */
export async function startRegistry(
  config: RegistryConfig & { databaseUrl: string },
  bus: EventBus | undefined,
  logger: Logger,
  options: { owned?: StopStep[] } = {},
): Promise<RunningService & { relay: OutboxRelay; useCase<T>(type: Type<T>): T }> {
  const { app, url } = await startHttpApp({
    module: RegistryModule.forRoot(config, { bus, logger, owned: options.owned }),
    logger,
    host: config.host,
    port: config.port,
  });
  // Drift reports from the edges (drift-quarantine/): the module's bus transport, closed with the app.
  await startConsumers(app);
  logger.info({ url }, 'registry listening');
  return { app, url, relay: app.get(OutboxRelay), useCase: (type) => app.get(type), stop: () => app.close() };
}
