import { randomUUID } from 'node:crypto';
import { topicName } from '@estate/events';
import { DeadLetterOffice, estateTopics, type EventBus, type Logger } from '@estate/platform';
import { CatalogReplica } from './catalog/catalog.replica';
import { CallRecorder } from './calls/call.recorder';
import { DriftWatcher } from './catalog/drift.watcher';
import { RegistryQuarantineClient } from './catalog/registry.quarantine.client';
import type { EdgeConfig } from './config';
import { ToolCallPipeline } from './mcp/tool-call.pipeline';
import { CallPolicy } from './policy/call.policy';
import { PrimitiveProxyExtension } from './proxy/primitive-proxy.extension';
import { SessionManager } from './sessions/session.manager';
import { UpstreamPool } from './upstream/upstream.pool';

/**
 * Everything an edge serves sessions with, whatever the transport: catalog replica, recorder,
 * upstream pool, pipeline, proxy extension and sessions. The HTTP edge
 * (edge.app.ts) and the stdio edge share it; it starts no Nest application.
 */
export async function startEdgeCore(config: EdgeConfig, bus: EventBus, logger: Logger) {
  const specs = estateTopics(config.topicPrefix, config.callsRetentionMs);
  const topics = { catalog: specs.catalog.name, calls: specs.calls.name };
  await bus.ensureTopics([specs.catalog, specs.calls]);
  const replica = new CatalogReplica(logger.child({ component: 'catalog' }));
  const deadLetters = new DeadLetterOffice(bus, topicName(config.topicPrefix, 'deadLetter'), 'mcp-edge', logger.child({ component: 'dead-letters' }));
  await deadLetters.prepare();
  await replica.start(bus, topics.catalog, `${config.groupPrefix}-${randomUUID()}`, deadLetters);
  const recorder = new CallRecorder(bus, topics.calls, logger.child({ component: 'calls' }));
  const upstreams = new UpstreamPool(logger.child({ component: 'upstream' }), Date.now, config.upstream.pool);
  const drift = new DriftWatcher(replica, quarantineReporter(config), logger.child({ component: 'drift' }));
  upstreams.onTools((server, tools) => drift.observe(server, tools));
  const pipeline = new ToolCallPipeline(replica, upstreams, recorder, new CallPolicy(config.policy), { timeoutMs: config.upstreamTimeoutMs, logger: logger.child({ component: 'calls' }) });
  pipeline.onOutputDrift((name, version, problems) => drift.outputBroken(name, version, problems));
  const proxy = new PrimitiveProxyExtension({
    replica, upstreams, pipeline, recorder, logger: logger.child({ component: 'proxy' }), timeoutMs: config.upstreamTimeoutMs, textAction: config.upstream.textAction,
  });
  const sessions = new SessionManager(
    replica, pipeline, logger.child({ component: 'sessions' }), { idleMs: config.sessionIdleMs, maxPerPrincipal: config.maxSessionsPerPrincipal }, Date.now, [proxy],
  );
  sessions.onClosed((id) => upstreams.release(id));
  sessions.start();
  return {
    replica,
    sessions,
    deadLetters,
    recorder,
    stop: async () => {
      await sessions.closeAll();
      await recorder.flush();
      await replica.stop();
      await upstreams.close();
    },
  };
}

/** The edge reports quarantines to the registry as its own service principal (see policy.config.ts). */
function quarantineReporter(config: EdgeConfig): RegistryQuarantineClient | undefined {
  if (!config.registryUrl) return undefined;
  const auth = config.auth.mode === 'jwt' ? config.auth : undefined;
  return new RegistryQuarantineClient({
    registryUrl: config.registryUrl, serviceToken: config.edgeServiceToken, jwtSecret: auth?.secret, issuer: auth?.issuer, audience: auth?.audience,
  });
}
