import { Module, type DynamicModule } from '@nestjs/common';
import { EDGE_METADATA, EdgeController, type EdgeMetadata } from './http/edge.controller';

@Module({})
export class EdgeModule {
  static with(meta: EdgeMetadata): DynamicModule {
    return { module: EdgeModule, controllers: [EdgeController], providers: [{ provide: EDGE_METADATA, useValue: meta }] };
  }
}
