import { Module, type DynamicModule } from '@nestjs/common';
import { BearerGuard, PRINCIPAL_RESOLVER, type PrincipalResolver } from '@estate/platform';
import { EventsController } from './http/events.controller';
import { RegistryController } from './http/registry.controller';
import { RegistryService } from './registry.service';
import { EventLogReader } from './store/event-log.reader';

@Module({})
export class RegistryModule {
  static with(service: RegistryService, resolver: PrincipalResolver, events: EventLogReader): DynamicModule {
    return {
      module: RegistryModule,
      controllers: [RegistryController, EventsController],
      providers: [
        { provide: RegistryService, useValue: service },
        { provide: EventLogReader, useValue: events },
        { provide: PRINCIPAL_RESOLVER, useValue: resolver },
        BearerGuard,
      ],
    };
  }
}
