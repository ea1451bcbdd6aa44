import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { CLOCK, DATABASE, estateTopics, EVENT_BUS, LOGGER, OwnedResources, SERVICE_CONFIG, stopServiceParts, type Clock, type EventBus, type Logger } from '@estate/platform';
import type { RegistryRootConfig } from './registry.module';
import { OutboxRelay } from './store/outbox.relay';
import { SunsetHandler } from './sunset/sunset.handler';

/**
 * Starts the relay and the sunset sweep before the HTTP server listens (Nest bootstraps before
 * `listen`), and stops them after it closed: the sweep first, so no retirement starts while
 * the relay drains, then the relay, then the pool.
 */
@Injectable()
export class RegistryLifecycle implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  private sweep?: NodeJS.Timeout;

  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: RegistryRootConfig,
    @Inject(DATABASE) private readonly db: DataSource,
    @Inject(EVENT_BUS) private readonly bus: EventBus,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly relay: OutboxRelay,
    private readonly sunsets: SunsetHandler,
    private readonly owned: OwnedResources,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.bus.ensureTopics([estateTopics(this.config.topicPrefix, this.config.callsRetentionMs).registryEvents]);
    await this.relay.start();
    this.sweep = setInterval(() => this.sweepSunsets(), this.config.sunsetSweepMs);
    this.sweep.unref();
  }

  beforeApplicationShutdown(): void {
    clearInterval(this.sweep);
  }

  onApplicationShutdown(): Promise<void> {
    return stopServiceParts(this.logger, [
      { name: 'relay', stop: () => this.relay.stop() },
      { name: 'registry database', stop: () => this.db.destroy() },
    ], this.owned);
  }

  private sweepSunsets(): void {
    this.sunsets.sweep(this.clock()).then(
      (retired) => retired > 0 && this.logger.info({ retired }, 'retired versions past their sunset date'),
      (error: unknown) => this.logger.warn({ err: error }, 'sunset sweep failed; will retry'),
    );
  }
}
