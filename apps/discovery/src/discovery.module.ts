import { Module, type DynamicModule } from '@nestjs/common';
import { BearerGuard, PRINCIPAL_RESOLVER, type PrincipalResolver } from '@estate/platform';
import { CatalogEventsController } from './catalog-events.controller';
import { CatalogProjector } from './catalog.projector';
import { DiscoveryController } from './http/discovery.controller';
import { CatalogRepository } from './store/catalog.repository';

@Module({})
export class DiscoveryModule {
  static with(repo: CatalogRepository, projector: CatalogProjector, resolver: PrincipalResolver): DynamicModule {
    return {
      module: DiscoveryModule,
      controllers: [DiscoveryController, CatalogEventsController],
      providers: [
        { provide: CatalogRepository, useValue: repo },
        { provide: CatalogProjector, useValue: projector },
        { provide: PRINCIPAL_RESOLVER, useValue: resolver },
        BearerGuard,
      ],
    };
  }
}
