import { Module, type DynamicModule } from '@nestjs/common';
import { BearerGuard, PRINCIPAL_RESOLVER, type PrincipalResolver } from '@estate/platform';
import { AuditEventsController } from './audit-events.controller';
import { AuditConsumer } from './audit.consumer';
import { AuditController } from './http/audit.controller';
import { EventStreamController } from './http/event-stream.controller';
import { AuditRepository } from './store/audit.repository';
import { ToolChangeFeed } from './stream/tool-change.feed';
import { TrailCompleteness } from './trail.completeness';

@Module({})
export class AuditModule {
  static with(repo: AuditRepository, feed: ToolChangeFeed, resolver: PrincipalResolver, trail: TrailCompleteness, consumer: AuditConsumer): DynamicModule {
    return {
      module: AuditModule,
      controllers: [AuditController, EventStreamController, AuditEventsController],
      providers: [
        { provide: AuditRepository, useValue: repo },
        { provide: ToolChangeFeed, useValue: feed },
        { provide: TrailCompleteness, useValue: trail },
        { provide: AuditConsumer, useValue: consumer },
        { provide: PRINCIPAL_RESOLVER, useValue: resolver },
        BearerGuard,
      ],
    };
  }
}
