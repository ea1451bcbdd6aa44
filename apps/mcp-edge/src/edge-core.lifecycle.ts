import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { topicName } from '@estate/events';
import { DeadLetterOffice, estateTopics, LOGGER, OwnedResources, SERVICE_CONFIG, stopServiceParts, type EventBus, type Logger } from '@estate/platform';
import { CallRecorder } from './calls/call.recorder';
import { CatalogReplica } from './catalog/catalog.replica';
import { DriftPublisher } from './catalog/drift.publisher';
import type { EdgeConfig } from './config';
import { EDGE_BUS, REPLICA_GROUP } from './edge-core.tokens';
import { SessionManager } from './sessions/session.manager';
import { UpstreamPool } from './upstream/upstream.pool';

/**
 * The replica consumes before any session is served. Sessions close before the HTTP server
 * does (an open SSE stream would keep its close waiting); then the recorder publishes what it
 * holds, the replica leaves its group, and the upstream connections close.
 */
@Injectable()
export class EdgeCoreLifecycle implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: EdgeConfig,
    @Inject(EDGE_BUS) private readonly bus: EventBus,
    @Inject(REPLICA_GROUP) private readonly group: string,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly deadLetters: DeadLetterOffice,
    private readonly replica: CatalogReplica,
    private readonly recorder: CallRecorder,
    private readonly drift: DriftPublisher,
    private readonly upstreams: UpstreamPool,
    private readonly sessions: SessionManager,
    private readonly owned: OwnedResources,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const specs = estateTopics(this.config.topicPrefix, this.config.callsRetentionMs);
    await this.bus.ensureTopics([specs.catalog, specs.calls, specs.drift]);
    await this.deadLetters.prepare();
    // The consumer: a Nest microservice of its own over the bus transport (catalog.consumer.ts), caught up before sessions are served; stopped below.
    await this.replica.start(this.bus, topicName(this.config.topicPrefix, 'catalog'), this.group, this.deadLetters);
    this.recorder.start();
    this.sessions.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.sessions.closeAll();
  }

  onApplicationShutdown(): Promise<void> {
    return stopServiceParts(this.logger, [
      // A call that ended while the sessions closed is still published.
      { name: 'call recorder', stop: () => this.recorder.close() },
      { name: 'drift reports', stop: () => this.drift.close() },
      { name: 'catalog replica', stop: () => this.replica.stop() },
      { name: 'upstreams', stop: () => this.upstreams.close() },
    ], this.owned);
  }
}
