import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { DATABASE, DeadLetterOffice, estateTopics, EVENT_BUS, LOGGER, OwnedResources, SERVICE_CONFIG, stopServiceParts, type EventBus, type Logger } from '@estate/platform';
import { CatalogProjector } from './catalog.projector';
import type { DiscoveryRootConfig } from './discovery.module';

/**
 * The catalog is republished before the HTTP server listens; the projector consumes once it does
 * (startDiscovery connects the bus transport). Nest closes the transport after the server, and
 * the pool closes here last, so no applied batch is left without its committed position.
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
    // Republishes the catalog; the consumer itself is the app's bus transport (CONSUMER_TRANSPORT), started by startDiscovery.
    await this.projector.start();
  }

  onApplicationShutdown(): Promise<void> {
    return stopServiceParts(this.logger, [
      { name: 'held catalog entries', stop: () => this.projector.stop() },
      { name: 'discovery database', stop: () => this.db.destroy() },
    ], this.owned);
  }
}
