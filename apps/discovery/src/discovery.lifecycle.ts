import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { DATABASE, DeadLetterOffice, estateTopics, EVENT_BUS, LOGGER, OwnedResources, SERVICE_CONFIG, stopServiceParts, type EventBus, type Logger } from '@estate/platform';
import { CatalogProjector } from './catalog.projector';
import type { DiscoveryRootConfig } from './discovery.module';

/**
 * The projector consumes before the HTTP server listens (Nest bootstraps before `listen`), so
 * the first request finds the catalog being caught up; it stops after the server closed, and
 * the pool last, so no applied event is left without its committed position.
 */
@Injectable()
export class DiscoveryLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: DiscoveryRootConfig,
    @Inject(DATABASE) private readonly db: DataSource,
    @Inject(EVENT_BUS) private readonly bus: EventBus,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly deadLetters: DeadLetterOffice,
    private readonly projector: CatalogProjector,
    private readonly owned: OwnedResources,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const specs = estateTopics(this.config.topicPrefix, this.config.callsRetentionMs);
    await this.bus.ensureTopics([specs.registryEvents, specs.catalog]);
    await this.deadLetters.prepare();
    // The consumer: one start here, one stop below (the place a microservice transport takes over).
    await this.projector.start();
  }

  onApplicationShutdown(): Promise<void> {
    return stopServiceParts(this.logger, [
      { name: 'projector', stop: () => this.projector.stop() },
      { name: 'discovery database', stop: () => this.db.destroy() },
    ], this.owned);
  }
}
