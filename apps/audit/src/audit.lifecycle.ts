import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { DATABASE, DeadLetterOffice, estateTopics, EVENT_BUS, LOGGER, OwnedResources, SERVICE_CONFIG, stopServiceParts, type EventBus, type Logger } from '@estate/platform';
import { AuditConsumer } from './audit.consumer';
import type { AuditRootConfig } from './audit.module';
import { ToolChangeFeed } from './stream/tool-change.feed';

/**
 * The feed and the recorder start before the HTTP server listens. The feed stops before the
 * server closes (an open event stream would keep the close waiting), the recorder after it, and
 * the pool last, so no entry is cut off halfway through its chain.
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
    private readonly consumer: AuditConsumer,
    private readonly owned: OwnedResources,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const specs = estateTopics(this.config.topicPrefix, this.config.callsRetentionMs);
    await this.bus.ensureTopics([specs.registryEvents, specs.calls]);
    await this.feed.start();
    await this.deadLetters.prepare();
    // The consumer: one start here, one stop below (the place a microservice transport takes over).
    await this.consumer.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.feed.stop();
  }

  onApplicationShutdown(): Promise<void> {
    return stopServiceParts(this.logger, [
      { name: 'recorder', stop: () => this.consumer.stop() },
      { name: 'audit database', stop: () => this.db.destroy() },
    ], this.owned);
  }
}
