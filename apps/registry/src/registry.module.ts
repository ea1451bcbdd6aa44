import { Module, type DynamicModule } from '@nestjs/common';
import { BearerGuard, PRINCIPAL_RESOLVER, type PrincipalResolver } from '@estate/platform';
import { RegistryController } from './http/registry.controller';
import { RegistryService } from './registry.service';

@Module({})
export class RegistryModule {
  static with(service: RegistryService, resolver: PrincipalResolver): DynamicModule {
    return {
      module: RegistryModule,
      controllers: [RegistryController],
      providers: [
        { provide: RegistryService, useValue: service },
        { provide: PRINCIPAL_RESOLVER, useValue: resolver },
        BearerGuard,
      ],
    };
  }
}
