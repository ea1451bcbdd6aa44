import { Injectable, Module, type DynamicModule } from '@nestjs/common';
import {
  BearerGuard, ConsumerMonitor, DeadLetterOffice, HealthController, METRICS_ACCESS, PRINCIPAL_RESOLVER, PrincipalResolver, SERVICE_HEALTH, serviceHealth,
  type ServicePorts,
} from '@estate/platform';
import { CallRecorder } from './calls/call.recorder';
import { CatalogReplica } from './catalog/catalog.replica';
import { isLoopback, type EdgeConfig } from './config';
import { EdgeCoreModule } from './edge-core.module';
import { EDGE_METADATA, EdgeController, type EdgeMetadata } from './http/edge.controller';
import { RequestGuard } from './http/request.guard';
import { edgeRegistry } from './metrics/edge.registry';
import { SessionManager } from './sessions/session.manager';

/** The edge's public base URL: ESTATE_EDGE_PUBLIC_URL, else the address it listens on, known only once it does. */
@Injectable()
export class EdgeAddress {
  base = '';
}

/** The HTTP edge: the core behind /mcp (mounted by edge.app.ts), OAuth metadata, health and metrics. */
@Module({})
export class EdgeModule {
  static forRoot(config: EdgeConfig, ports: ServicePorts): DynamicModule {
    const allowedHosts = config.allowedHosts.length > 0 ? config.allowedHosts : isLoopback(config.host) ? ['127.0.0.1', 'localhost', '[::1]'] : [];
    return {
      module: EdgeModule,
      imports: [EdgeCoreModule.forRoot(config, ports)],
      controllers: [EdgeController, HealthController],
      providers: [
        { provide: EdgeAddress, useFactory: () => Object.assign(new EdgeAddress(), { base: config.publicUrl ?? '' }) },
        {
          provide: EDGE_METADATA,
          useFactory: (address: EdgeAddress): EdgeMetadata => ({
            get resource() {
              return `${address.base}/mcp`;
            },
            authorizationServers: config.auth.mode === 'jwt' && config.auth.issuer ? [config.auth.issuer] : [],
          }),
          inject: [EdgeAddress],
        },
        {
          provide: RequestGuard,
          useFactory: (address: EdgeAddress) => new RequestGuard({
            allowedOrigins: config.allowedOrigins,
            allowedHosts,
            get resourceMetadataUrl() {
              return `${address.base}/.well-known/oauth-protected-resource`;
            },
          }),
          inject: [EdgeAddress],
        },
        { provide: PRINCIPAL_RESOLVER, useFactory: () => new PrincipalResolver(config.auth) },
        {
          // No database: the edge serves from its replica; counts are for administrators only.
          provide: SERVICE_HEALTH,
          useFactory: (monitor: ConsumerMonitor, sessions: SessionManager, replica: CatalogReplica, deadLetters: DeadLetterOffice) =>
            serviceHealth(config.health, { monitor, consumers: ['catalog'], facts: async () => ({ sessions: sessions.size, tools: replica.size, deadLetters: deadLetters.count }) }),
          inject: [ConsumerMonitor, SessionManager, CatalogReplica, DeadLetterOffice],
        },
        {
          provide: METRICS_ACCESS,
          useFactory: (replica: CatalogReplica, sessions: SessionManager, recorder: CallRecorder, deadLetters: DeadLetterOffice, monitor: ConsumerMonitor) => ({
            registry: edgeRegistry({ replica, sessions, recorder, deadLetters, monitor }), token: config.metricsToken,
          }),
          inject: [CatalogReplica, SessionManager, CallRecorder, DeadLetterOffice, ConsumerMonitor],
        },
        BearerGuard,
      ],
    };
  }
}
