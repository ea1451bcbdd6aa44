import { Module, type DynamicModule } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { topicName } from '@estate/events';
import {
  BearerGuard, BusTransport, CONSUMER_TRANSPORT, ConsumerMonitor, DATABASE, databaseProvider, DeadLetterOffice, estateTopics, EVENT_BUS, HealthController, LOGGER, METRICS_ACCESS,
  portProviders, PRINCIPAL_RESOLVER, PrincipalResolver, SERVICE_HEALTH, serviceHealth, type EventBus, type Logger, type ServicePorts,
} from '@estate/platform';
import { CatalogEventsController } from './catalog-events.controller';
import { CatalogProjector } from './catalog.projector';
import type { DiscoveryConfig } from './config';
import { discoveryRegistry } from './discovery.metrics';
import { DiscoveryLifecycle } from './discovery.lifecycle';
import { DiscoveryController } from './http/discovery.controller';
import { RegistryEventsClient } from './registry-events.client';
import { CatalogRepository } from './store/catalog.repository';
import { TimeTravelController } from './time-travel/time-travel.controller';
import { timeTravelProviders } from './time-travel/time-travel.providers';
import { DISCOVERY_ENTITIES, DISCOVERY_MIGRATIONS } from './store/migrations';

export type DiscoveryRootConfig = DiscoveryConfig & { databaseUrl: string };

/** The bus as the projector sees it: wrapped by the consumer monitor, which reports on the live group only. */
export const PROJECTOR_BUS = Symbol('ProjectorBus');
/** Where a rebuild reads the registry's event store (GET /v1/events); null without ESTATE_REGISTRY_URL. */
export const REBUILD_SOURCE = Symbol('RebuildSource');
export const DISCOVERY_METRICS = Symbol('DiscoveryMetrics');

/** Discovery: the catalog projection and its consumer, the catalog publisher, the REST surface, health and metrics. */
@Module({})
export class DiscoveryModule {
  static forRoot(config: DiscoveryRootConfig, ports: ServicePorts): DynamicModule {
    const auth = config.auth.mode === 'jwt' ? config.auth : undefined;
    return {
      module: DiscoveryModule,
      controllers: [DiscoveryController, TimeTravelController, HealthController, CatalogEventsController],
      providers: [
        ...portProviders('discovery', config, ports),
        databaseProvider({ schema: 'discovery', migrations: DISCOVERY_MIGRATIONS, entities: DISCOVERY_ENTITIES }),
        { provide: CatalogRepository, useFactory: (db: DataSource) => new CatalogRepository(db), inject: [DATABASE] },
        { provide: ConsumerMonitor, useFactory: (bus: EventBus) => new ConsumerMonitor(bus, config.health), inject: [EVENT_BUS] },
        {
          provide: PROJECTOR_BUS,
          // A rebuild reads the topic under a throwaway group, which the monitor must not report.
          useFactory: (monitor: ConsumerMonitor, bus: EventBus) => monitor.watch(bus, (o) => (o.groupId === config.groupId ? 'projector' : undefined)),
          inject: [ConsumerMonitor, EVENT_BUS],
        },
        {
          provide: DeadLetterOffice,
          useFactory: (bus: EventBus, logger: Logger) =>
            new DeadLetterOffice(bus, topicName(config.topicPrefix, 'deadLetter'), 'discovery', logger.child({ component: 'dead-letters' })),
          inject: [EVENT_BUS, LOGGER],
        },
        {
          provide: DISCOVERY_METRICS,
          useFactory: (monitor: ConsumerMonitor, deadLetters: DeadLetterOffice) => discoveryRegistry(monitor, deadLetters),
          inject: [ConsumerMonitor, DeadLetterOffice],
        },
        {
          provide: REBUILD_SOURCE,
          useFactory: () => config.registryUrl === undefined ? null : new RegistryEventsClient({
            registryUrl: config.registryUrl, serviceToken: config.serviceToken, jwtSecret: auth?.secret, issuer: auth?.issuer, audience: auth?.audience,
          }),
        },
        {
          provide: CatalogProjector,
          useFactory: (repo: CatalogRepository, bus: EventBus, logger: Logger, deadLetters: DeadLetterOffice, source: RegistryEventsClient | null, metrics: ReturnType<typeof discoveryRegistry>) => {
            const specs = estateTopics(config.topicPrefix, config.callsRetentionMs);
            return new CatalogProjector(
              repo, bus, { events: specs.registryEvents.name, catalog: specs.catalog.name }, config.groupId, logger.child({ component: 'projector' }), deadLetters,
              { source: source ?? undefined, timeoutMs: config.rebuildTimeoutMs, watch: metrics.rebuilds }, config.republishGapMs,
            );
          },
          inject: [CatalogRepository, PROJECTOR_BUS, LOGGER, DeadLetterOffice, REBUILD_SOURCE, DISCOVERY_METRICS],
        },
        {
          // The projector's consumer as a Nest microservice (catalog-events.controller.ts), connected by startDiscovery.
          provide: CONSUMER_TRANSPORT,
          useFactory: (bus: EventBus, projector: CatalogProjector, logger: Logger) =>
            new BusTransport(bus, { bindings: { registryEvents: projector.binding() }, logger: logger.child({ component: 'projector' }) }),
          inject: [PROJECTOR_BUS, CatalogProjector, LOGGER],
        },
        { provide: PRINCIPAL_RESOLVER, useFactory: () => new PrincipalResolver(config.auth) },
        {
          provide: SERVICE_HEALTH,
          useFactory: (db: DataSource, monitor: ConsumerMonitor) => serviceHealth(config.health, { db, monitor, consumers: ['projector'] }),
          inject: [DATABASE, ConsumerMonitor],
        },
        {
          provide: METRICS_ACCESS,
          useFactory: (metrics: ReturnType<typeof discoveryRegistry>) => ({ registry: metrics.registry, token: config.metricsToken }),
          inject: [DISCOVERY_METRICS],
        },
        ...timeTravelProviders(REBUILD_SOURCE),
        BearerGuard,
        DiscoveryLifecycle,
      ],
    };
  }
}
