import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { DATABASE, DeadLetterOffice, estateTopics, EVENT_BUS, LOGGER, OwnedResources, SERVICE_CONFIG, stopServiceParts, type EventBus, type Logger } from '@estate/platform';
import type { AuditRootConfig } from './audit.module';
import { ToolChangeFeed } from './stream/tool-change.feed';

/**
 * Topics, the feed and the dead-letter topic are ready before the HTTP server listens; the
 * recorder (the bus transport) starts once it does. The feed stops before the server closes (an
 * open event stream would keep the close waiting); Nest closes the recorder after the server,
 * and the pool closes here last, so no batch is cut off halfway through its transaction.
 */
@Injectable()
export class AuditLifecycle implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: AuditRootConfig,
    @Inject(DATABASE) private readonly db: DataSource,
    @Inject(EVENT_BUS) private readonly bus: EventBus,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly feed: ToolChangeFeed,
    private readonly deadLetters: DeadLetterOffice,
    private readonly owned: OwnedResources,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const specs = estateTopics(this.config.topicPrefix, this.config.callsRetentionMs);
    await this.bus.ensureTopics([specs.registryEvents, specs.calls]);
    await this.feed.start();
    await this.deadLetters.prepare();
    // The recorder is the app's bus transport (CONSUMER_TRANSPORT), started by startAudit once it listens.
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.feed.stop();
  }

  onApplicationShutdown(): Promise<void> {
    return stopServiceParts(this.logger, [
      { name: 'audit database', stop: () => this.db.destroy() },
    ], this.owned);
  }
}
