import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { topicName } from '@estate/events';
import { PrincipalResolver, startHttpApp, type EventBus, type Logger } from '@estate/platform';
import { CatalogReplica } from './catalog/catalog.replica';
import { CallRecorder } from './calls/call.recorder';
import { DriftWatcher } from './catalog/drift.watcher';
import { RegistryQuarantineClient } from './catalog/registry.quarantine.client';
import { isLoopback, type EdgeConfig } from './config';
import { EdgeModule } from './edge.module';
import { answerClientErrors } from './http/client-error.handler';
import { JsonRpcErrorFilter } from './http/json-rpc-error.filter';
import { createMcpEndpoint } from './http/mcp.endpoint';
import { RequestGuard } from './http/request.guard';
import { ToolCallPipeline } from './mcp/tool-call.pipeline';
import { CallPolicy } from './policy/call.policy';
import { PrimitiveProxyExtension } from './proxy/primitive-proxy.extension';
import { SessionManager } from './sessions/session.manager';
import { UpstreamPool } from './upstream/upstream.pool';

/**
 * Everything an edge serves sessions with, whatever the transport: catalog replica, recorder,
 * upstream pool, pipeline, proxy extension and sessions. The HTTP edge and the stdio edge share it.
 */
export async function startEdgeCore(config: EdgeConfig, bus: EventBus, logger: Logger) {
  const topics = { catalog: topicName(config.topicPrefix, 'catalog'), calls: topicName(config.topicPrefix, 'calls') };
  await bus.ensureTopics([{ name: topics.catalog, compacted: true }, { name: topics.calls }]);
  const replica = new CatalogReplica(logger.child({ component: 'catalog' }));
  await replica.start(bus, topics.catalog, `${config.groupPrefix}-${randomUUID()}`);
  const recorder = new CallRecorder(bus, topics.calls, logger.child({ component: 'calls' }));
  const upstreams = new UpstreamPool(logger.child({ component: 'upstream' }));
  const drift = new DriftWatcher(replica, quarantineReporter(config), logger.child({ component: 'drift' }));
  upstreams.onTools((server, tools) => drift.observe(server, tools));
  const pipeline = new ToolCallPipeline(replica, upstreams, recorder, new CallPolicy(config.policy), { timeoutMs: config.upstreamTimeoutMs, logger: logger.child({ component: 'calls' }) });
  const proxy = new PrimitiveProxyExtension({ replica, upstreams, pipeline, recorder, logger: logger.child({ component: 'proxy' }), timeoutMs: config.upstreamTimeoutMs });
  const sessions = new SessionManager(replica, pipeline, logger.child({ component: 'sessions' }), config.sessionIdleMs, Date.now, [proxy]);
  sessions.start();
  return {
    replica,
    sessions,
    stop: async () => {
      await sessions.closeAll();
      await recorder.flush();
      await replica.stop();
      await upstreams.close();
    },
  };
}

/** The edge's composition root: the core above behind the /mcp endpoint. */
export async function startEdge(config: EdgeConfig, bus: EventBus, logger: Logger) {
  const { replica, sessions, stop } = await startEdgeCore(config, bus, logger);
  const resolver = new PrincipalResolver(config.auth);
  const allowedHosts = config.allowedHosts.length > 0 ? config.allowedHosts : isLoopback(config.host) ? ['127.0.0.1', 'localhost', '[::1]'] : [];
  let base = config.publicUrl ?? '';
  const guard = new RequestGuard({
    allowedOrigins: config.allowedOrigins,
    allowedHosts,
    get resourceMetadataUrl() {
      return `${base}/.well-known/oauth-protected-resource`;
    },
  });
  const endpoint = createMcpEndpoint({ sessions, resolver, guard, maxBodyBytes: config.maxBodyBytes, logger });
  const { app, url } = await startHttpApp({
    module: EdgeModule.with({
      get resource() {
        return `${base}/mcp`;
      },
      authorizationServers: config.auth.mode === 'jwt' && config.auth.issuer ? [config.auth.issuer] : [],
      sessions: () => sessions.size,
      tools: () => replica.size,
    }),
    logger,
    host: config.host,
    port: config.port,
    configure: (express) => {
      express.use('/mcp', (req: IncomingMessage, res: ServerResponse) => void endpoint(req, res));
      express.useGlobalFilters(new JsonRpcErrorFilter());
    },
  });
  base ||= url;
  answerClientErrors(app.getHttpServer());
  logger.info({ url: `${url}/mcp` }, 'mcp edge listening');
  return {
    url,
    mcpUrl: `${url}/mcp`,
    replica,
    sessions,
    stop: async () => {
      await sessions.closeAll();
      await app.close();
      await stop();
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
