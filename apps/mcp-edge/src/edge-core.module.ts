import { randomUUID } from 'node:crypto';
import { Module, type DynamicModule, type Provider } from '@nestjs/common';
import { topicName } from '@estate/events';
import { ConsumerMonitor, DeadLetterOffice, EVENT_BUS, LOGGER, portProviders, type EventBus, type Logger, type ServicePorts } from '@estate/platform';
import { CallRecorder } from './calls/call.recorder';
import { CatalogReplica } from './catalog/catalog.replica';
import { DriftWatcher } from './catalog/drift.watcher';
import { DriftPublisher } from './catalog/drift.publisher';
import type { EdgeConfig } from './config';
import { EdgeCoreLifecycle } from './edge-core.lifecycle';
import { EDGE_BUS, REPLICA_GROUP } from './edge-core.tokens';
import { ToolCallPipeline } from './mcp/tool-call.pipeline';
import { CallPolicy } from './policy/call.policy';
import { PrimitiveProxyExtension } from './proxy/primitive-proxy.extension';
import { SessionManager } from './sessions/session.manager';
import { UpstreamPool } from './upstream/upstream.pool';


function coreProviders(config: EdgeConfig, ports: ServicePorts): Provider[] {
  const topics = { catalog: topicName(config.topicPrefix, 'catalog'), calls: topicName(config.topicPrefix, 'calls'), drift: topicName(config.topicPrefix, 'drift') };
  const child = (logger: Logger, component: string) => logger.child({ component });
  return [
    ...portProviders('mcp-edge', config, ports),
    { provide: REPLICA_GROUP, useFactory: () => `${config.groupPrefix}-${randomUUID()}` },
    { provide: ConsumerMonitor, useFactory: (bus: EventBus) => new ConsumerMonitor(bus, config.health), inject: [EVENT_BUS] },
    { provide: EDGE_BUS, useFactory: (monitor: ConsumerMonitor, bus: EventBus) => monitor.watch(bus, (o) => (o.topic === topics.catalog ? 'catalog' : undefined)), inject: [ConsumerMonitor, EVENT_BUS] },
    {
      provide: DeadLetterOffice,
      useFactory: (bus: EventBus, logger: Logger) => new DeadLetterOffice(bus, topicName(config.topicPrefix, 'deadLetter'), 'mcp-edge', child(logger, 'dead-letters')),
      inject: [EDGE_BUS, LOGGER],
    },
    { provide: CatalogReplica, useFactory: (logger: Logger) => new CatalogReplica(child(logger, 'catalog')), inject: [LOGGER] },
    { provide: CallRecorder, useFactory: (bus: EventBus, logger: Logger) => new CallRecorder(bus, { topic: topics.calls, spool: config.spool }, child(logger, 'calls')), inject: [EDGE_BUS, LOGGER] },
    { provide: UpstreamPool, useFactory: (logger: Logger) => new UpstreamPool(child(logger, 'upstream'), Date.now, config.upstream.pool), inject: [LOGGER] },
    { provide: DriftPublisher, useFactory: (bus: EventBus, logger: Logger) => new DriftPublisher(bus, topics.drift, child(logger, 'drift')), inject: [EDGE_BUS, LOGGER] },
    {
      provide: DriftWatcher,
      useFactory: (replica: CatalogReplica, upstreams: UpstreamPool, publisher: DriftPublisher, logger: Logger) => {
        const drift = new DriftWatcher(replica, publisher, child(logger, 'drift'));
        upstreams.onTools((server, tools) => drift.observe(server, tools));
        return drift;
      },
      inject: [CatalogReplica, UpstreamPool, DriftPublisher, LOGGER],
    },
    {
      provide: ToolCallPipeline,
      useFactory: (replica: CatalogReplica, upstreams: UpstreamPool, recorder: CallRecorder, drift: DriftWatcher, logger: Logger) => {
        const pipeline = new ToolCallPipeline(replica, upstreams, recorder, new CallPolicy(config.policy), { timeoutMs: config.upstreamTimeoutMs, logger: child(logger, 'calls') });
        pipeline.onOutputDrift((name, version, problems) => drift.outputBroken(name, version, problems));
        return pipeline;
      },
      inject: [CatalogReplica, UpstreamPool, CallRecorder, DriftWatcher, LOGGER],
    },
    {
      provide: PrimitiveProxyExtension,
      useFactory: (replica: CatalogReplica, upstreams: UpstreamPool, pipeline: ToolCallPipeline, recorder: CallRecorder, logger: Logger) => new PrimitiveProxyExtension({
        replica, upstreams, pipeline, recorder, logger: child(logger, 'proxy'), timeoutMs: config.upstreamTimeoutMs, textAction: config.upstream.textAction,
      }),
      inject: [CatalogReplica, UpstreamPool, ToolCallPipeline, CallRecorder, LOGGER],
    },
    {
      provide: SessionManager,
      useFactory: (replica: CatalogReplica, pipeline: ToolCallPipeline, proxy: PrimitiveProxyExtension, upstreams: UpstreamPool, logger: Logger) => {
        const sessions = new SessionManager(
          replica, pipeline, child(logger, 'sessions'), { idleMs: config.sessionIdleMs, maxPerPrincipal: config.maxSessionsPerPrincipal }, Date.now, [proxy],
        );
        sessions.onClosed((id) => upstreams.release(id));
        return sessions;
      },
      inject: [CatalogReplica, ToolCallPipeline, PrimitiveProxyExtension, UpstreamPool, LOGGER],
    },
    EdgeCoreLifecycle,
  ];
}

/**
 * Everything an edge serves sessions with, whatever the transport: catalog replica, recorder,
 * upstream pool, pipeline, proxy extension and sessions. The HTTP edge (EdgeModule) imports it;
 * the stdio edge runs it alone in an application context, without an HTTP server.
 */
@Module({})
export class EdgeCoreModule {
  static forRoot(config: EdgeConfig, ports: ServicePorts): DynamicModule {
    const providers = coreProviders(config, ports);
    return { module: EdgeCoreModule, providers, exports: providers.map((p) => ('provide' in p ? p.provide : p)) };
  }
}
