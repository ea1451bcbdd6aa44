import { randomBytes } from 'node:crypto';
import { Module, type DynamicModule } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { topicName } from '@estate/events';
import {
  BearerGuard, BusTransport, CONSUMER_TRANSPORT, ConsumerMonitor, DATABASE, databaseProvider, DeadLetterOffice, estateTopics, EVENT_BUS, HealthController, LOGGER, METRICS_ACCESS,
  portProviders, PRINCIPAL_RESOLVER, PrincipalResolver, registerConsumerMetrics, registerDeadLetterMetrics, SERVICE_HEALTH, serviceHealth,
  serviceRegistry, type EventBus, type Logger, type ServicePorts,
} from '@estate/platform';
import { AdvertisedAddress } from './advertised.address';
import { AuditEventsController } from './audit-events.controller';
import { AuditConsumer } from './audit.consumer';
import { AuditLifecycle } from './audit.lifecycle';
import { DeprecationCallersRecorder } from './deprecation/deprecation-callers.recorder';
import type { AuditConfig } from './config';
import { AuditController } from './http/audit.controller';
import { EventContractsController } from './http/event-contracts.controller';
import { EventStreamController } from './http/event-stream.controller';
import { AuditRepository } from './store/audit.repository';
import { AUDIT_ENTITIES, AUDIT_MIGRATIONS } from './store/migrations';
import { PublishedSpecs } from './store/published-spec.repository';
import { FeedCursorSeal } from './stream/feed-cursor.seal';
import { ToolChangeFeed } from './stream/tool-change.feed';
import { TrailCompleteness } from './trail.completeness';
import { SubscriptionsController } from './webhooks/subscriptions.controller';
import { webhookProviders } from './webhooks/webhook.providers';

export type AuditRootConfig = AuditConfig & { databaseUrl: string };

/** Tests shorten the heartbeat; production keeps 15 s. */
export interface AuditOptions {
  heartbeatMs?: number;
}

/** The bus as the recorder sees it: wrapped by the consumer monitor. */
export const RECORDER_BUS = Symbol('RecorderBus');

function auditTopics(config: AuditRootConfig) {
  const specs = estateTopics(config.topicPrefix, config.callsRetentionMs);
  return { registryEvents: specs.registryEvents.name, calls: specs.calls.name };
}

/** The consumer's groups are `${groupId}.<topic key>` (audit.consumer.ts), named for health and metrics. */
export function recorderNames(config: AuditRootConfig): Map<string, string> {
  return new Map([[`${config.groupId}.registryEvents`, 'registry-events'], [`${config.groupId}.calls`, 'calls']]);
}

/** Audit: the hash-chained trail and its recorder, the tool-change feed (SSE), the REST surface, health and metrics. */
@Module({})
export class AuditModule {
  static forRoot(config: AuditRootConfig, ports: ServicePorts, options: AuditOptions = {}): DynamicModule {
    const topics = auditTopics(config);
    const names = recorderNames(config);
    const advertised = new AdvertisedAddress(config.cloudEvents, config.publicUrlSet);
    return {
      module: AuditModule,
      controllers: [AuditController, EventStreamController, EventContractsController, HealthController, AuditEventsController, SubscriptionsController],
      providers: [
        ...portProviders('audit', config, ports),
        databaseProvider({ schema: 'audit', migrations: AUDIT_MIGRATIONS, entities: AUDIT_ENTITIES }),
        { provide: AdvertisedAddress, useValue: advertised },
        { provide: AuditRepository, useFactory: (db: DataSource) => new AuditRepository(db), inject: [DATABASE] },
        {
          provide: ToolChangeFeed,
          useFactory: (repo: AuditRepository, db: DataSource, logger: Logger) => new ToolChangeFeed(
            repo, new PublishedSpecs(db, topics.registryEvents),
            { registryTopic: topics.registryEvents, databaseUrl: config.databaseUrl, heartbeatMs: options.heartbeatMs ?? 15_000, cloudEvents: advertised.options },
            logger.child({ component: 'event-stream' }),
          ),
          inject: [AuditRepository, DATABASE, LOGGER],
        },
        {
          provide: FeedCursorSeal,
          useFactory: (logger: Logger) => {
            if (config.feedCursorSecret !== undefined) return new FeedCursorSeal(config.feedCursorSecret);
            logger.warn('feed cursors are sealed under a key this process made: a filtered subscriber resumes only here and until a restart; set ESTATE_WEBHOOK_SECRET_KEY');
            return new FeedCursorSeal(randomBytes(32));
          },
          inject: [LOGGER],
        },
        { provide: ConsumerMonitor, useFactory: (bus: EventBus) => new ConsumerMonitor(bus, config.health), inject: [EVENT_BUS] },
        { provide: RECORDER_BUS, useFactory: (monitor: ConsumerMonitor, bus: EventBus) => monitor.watch(bus, (o) => names.get(o.groupId)), inject: [ConsumerMonitor, EVENT_BUS] },
        {
          provide: DeadLetterOffice,
          useFactory: (bus: EventBus, logger: Logger) => new DeadLetterOffice(bus, topicName(config.topicPrefix, 'deadLetter'), 'audit', logger.child({ component: 'dead-letters' })),
          inject: [EVENT_BUS, LOGGER],
        },
        {
          provide: AuditConsumer,
          useFactory: (repo: AuditRepository, logger: Logger, deadLetters: DeadLetterOffice) =>
            new AuditConsumer(repo, topics, config.groupId, logger.child({ component: 'recorder' }), deadLetters),
          inject: [AuditRepository, LOGGER, DeadLetterOffice],
        },
        {
          // The recorder's two logs as a Nest microservice (audit-events.controller.ts), connected by startAudit.
          provide: CONSUMER_TRANSPORT,
          useFactory: (bus: EventBus, consumer: AuditConsumer, logger: Logger) =>
            new BusTransport(bus, { bindings: consumer.bindings(), logger: logger.child({ component: 'recorder' }) }),
          inject: [RECORDER_BUS, AuditConsumer, LOGGER],
        },
        {
          // Swap the append for the recorder's chained append if that changes; nothing else here touches the write path.
          provide: DeprecationCallersRecorder,
          useFactory: (db: DataSource, repo: AuditRepository, logger: Logger) => new DeprecationCallersRecorder(
            db, (entry) => repo.appendOne(entry, { notify: true }),
            { registryTopic: topics.registryEvents, windowDays: config.deprecationCallersDays, intervalMs: 1000, settleMs: 2000 }, logger.child({ component: 'deprecation-callers' }),
          ),
          inject: [DATABASE, AuditRepository, LOGGER],
        },
        {
          provide: TrailCompleteness,
          useFactory: (repo: AuditRepository, bus: EventBus) => new TrailCompleteness(repo, bus, [topics.registryEvents, topics.calls]),
          inject: [AuditRepository, EVENT_BUS],
        },
        { provide: PRINCIPAL_RESOLVER, useFactory: () => new PrincipalResolver(config.auth) },
        {
          provide: SERVICE_HEALTH,
          useFactory: (db: DataSource, monitor: ConsumerMonitor) => serviceHealth(config.health, { db, monitor, consumers: [...names.values()] }),
          inject: [DATABASE, ConsumerMonitor],
        },
        {
          provide: METRICS_ACCESS,
          useFactory: (monitor: ConsumerMonitor, deadLetters: DeadLetterOffice) => {
            const registry = serviceRegistry('audit');
            registerConsumerMetrics(registry, monitor);
            registerDeadLetterMetrics(registry, deadLetters);
            return { registry, token: config.metricsToken };
          },
          inject: [ConsumerMonitor, DeadLetterOffice],
        },
        ...webhookProviders(config, topics.registryEvents, advertised),
        BearerGuard,
        AuditLifecycle,
      ],
    };
  }
}
