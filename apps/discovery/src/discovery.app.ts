import type { INestApplication } from '@nestjs/common';
import { startHttpApp, type EventBus, type Logger, type StopStep } from '@estate/platform';
import { CatalogProjector } from './catalog.projector';
import type { DiscoveryConfig } from './config';
import { DiscoveryModule } from './discovery.module';
import { CatalogRepository } from './store/catalog.repository';

export interface RunningDiscovery {
  app: INestApplication;
  url: string;
  projector: CatalogProjector;
  repo: CatalogRepository;
  /** Nest's close: the shutdown hooks of discovery.lifecycle.ts. */
  stop(): Promise<void>;
}

/**
 * Discovery as a Nest application listening on its port (DiscoveryModule binds the parts).
 * `bus` undefined: the module builds its own from the config; `owned` are closed after it.
 */
export async function startDiscovery(
  config: DiscoveryConfig & { databaseUrl: string },
  bus: EventBus | undefined,
  logger: Logger,
  options: { owned?: StopStep[] } = {},
): Promise<RunningDiscovery> {
  const { app, url } = await startHttpApp({
    module: DiscoveryModule.forRoot(config, { bus, logger, owned: options.owned }),
    logger,
    host: config.host,
    port: config.port,
  });
  logger.info({ url }, 'discovery listening');
  return { app, url, projector: app.get(CatalogProjector), repo: app.get(CatalogRepository), stop: () => app.close() };
}
