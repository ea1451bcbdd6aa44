import { Module, type DynamicModule } from '@nestjs/common';
import { BearerGuard, PRINCIPAL_RESOLVER, ScopeGuard, type PrincipalResolver } from '@estate/platform';
import { EventsController } from './http/events.controller';
import { RegistryReadsController } from './http/registry-reads.controller';
import { RegistryController } from './http/registry.controller';
import { registryProviders } from './registry.providers';
import type { EventStore } from './store/event-store.port';
import { EventLogReader } from './store/event-log.reader';

@Module({})
export class RegistryModule {
  static with(store: EventStore, resolver: PrincipalResolver, events: EventLogReader): DynamicModule {
    return {
      module: RegistryModule,
      controllers: [RegistryController, RegistryReadsController, EventsController],
      providers: [
        ...registryProviders(store),
        { provide: EventLogReader, useValue: events },
        { provide: PRINCIPAL_RESOLVER, useValue: resolver },
        BearerGuard,
        ScopeGuard,
      ],
    };
  }
}
