import { Module, type DynamicModule } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import {
  BearerGuard, CLOCK, DATABASE, databaseProvider, estateTopics, EVENT_BUS, HealthController, ID_SOURCE, LOGGER, METRICS_ACCESS, portProviders,
  PRINCIPAL_RESOLVER, PrincipalResolver, REGISTRY_EVENT_MAX_BYTES, ScopeGuard, SERVICE_CONFIG, SERVICE_HEALTH, serviceHealth, type Clock, type EventBus, type IdSource, type Logger,
  type MetricsAccess, type ServiceHealth, type ServicePorts,
} from '@estate/platform';
import type { RegistryConfig } from './config';
import { DriftEventsController } from './drift-quarantine/drift-events.controller';
import { driftQuarantineProviders } from './drift-quarantine/drift-quarantine.providers';
import { EventsController } from './http/events.controller';
import { AsyncApiController } from './http/asyncapi.controller';
import { ToolHistoryController } from './history/tool-history.controller';
import { ToolHistoryQuery } from './history/tool-history.query';
import { RegistryReadsController } from './http/registry-reads.controller';
import { RegistryController } from './http/registry.controller';
import { registryProviders } from './registry.providers';
import { RegistryLifecycle } from './registry.lifecycle';
import { EventLogReader } from './store/event-log.reader';
import { REGISTRY_ENTITIES, REGISTRY_MIGRATIONS } from './store/migrations';
import { OutboxRelay } from './store/outbox.relay';
import { PostgresEventStore } from './store/postgres-event-store';
import { relayBacklog, relayBacklogCheck } from './store/relay.backlog';
import { registryMetrics } from './store/relay.metrics';

export type RegistryRootConfig = RegistryConfig & { databaseUrl: string };

/** The registry: event store and outbox relay on its schema, the REST surface, health and metrics. */
@Module({})
export class RegistryModule {
  static forRoot(config: RegistryRootConfig, ports: ServicePorts): DynamicModule {
    return {
      module: RegistryModule,
      controllers: [RegistryController, RegistryReadsController, EventsController, AsyncApiController, ToolHistoryController, HealthController, DriftEventsController],
      providers: [
        ...portProviders('registry', config, ports),
        databaseProvider({ schema: 'registry', migrations: REGISTRY_MIGRATIONS, entities: REGISTRY_ENTITIES }),
        ...registryProviders(config.compat, {
          useFactory: (db: DataSource, ids: IdSource, clock: Clock) => new PostgresEventStore(db, ids, clock),
          inject: [DATABASE, ID_SOURCE, CLOCK],
        }),
        { provide: EventLogReader, useFactory: (db: DataSource) => new EventLogReader(db), inject: [DATABASE] },
        {
          provide: OutboxRelay,
          useFactory: (db: DataSource, bus: EventBus, logger: Logger) =>
            new OutboxRelay(db, config.databaseUrl, bus, estateTopics(config.topicPrefix, config.callsRetentionMs).registryEvents, logger.child({ component: 'relay' }),
              'kafka', REGISTRY_EVENT_MAX_BYTES, config.cloudEvents),
          inject: [DATABASE, EVENT_BUS, LOGGER],
        },
        { provide: PRINCIPAL_RESOLVER, useFactory: (c: RegistryRootConfig) => new PrincipalResolver(c.auth), inject: [SERVICE_CONFIG] },
        {
          provide: SERVICE_HEALTH,
          useFactory: (db: DataSource, relay: OutboxRelay): ServiceHealth =>
            serviceHealth(config.health, {
              db,
              checks: [relayBacklogCheck(db, relay, config.health)],
              facts: async () => ({ relay: await relayBacklog(db, relay).catch((error: unknown) => ({ error: String(error) })) }),
            }),
          inject: [DATABASE, OutboxRelay],
        },
        {
          provide: METRICS_ACCESS,
          useFactory: (db: DataSource, relay: OutboxRelay): MetricsAccess => ({ registry: registryMetrics(db, relay), token: config.metricsToken }),
          inject: [DATABASE, OutboxRelay],
        },
        ToolHistoryQuery,
        BearerGuard,
        ScopeGuard,
        RegistryLifecycle,
        ...driftQuarantineProviders(config),
      ],
    };
  }
}
