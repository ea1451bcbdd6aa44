import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { topicName } from '@estate/events';
import { PrincipalResolver, startHttpApp, type EventBus, type Logger } from '@estate/platform';
import { CatalogReplica } from './catalog/catalog.replica';
import { CallRecorder } from './calls/call.recorder';
import { isLoopback, type EdgeConfig } from './config';
import { EdgeModule } from './edge.module';
import { createMcpEndpoint } from './http/mcp.endpoint';
import { RequestGuard } from './http/request.guard';
import { ToolCallPipeline } from './mcp/tool-call.pipeline';
import { SessionManager } from './sessions/session.manager';
import { UpstreamPool } from './upstream/upstream.pool';

/** The edge's composition root: catalog replica, upstream pool, sessions, the /mcp endpoint. */
export async function startEdge(config: EdgeConfig, bus: EventBus, logger: Logger) {
  const topics = { catalog: topicName(config.topicPrefix, 'catalog'), calls: topicName(config.topicPrefix, 'calls') };
  await bus.ensureTopics([{ name: topics.catalog, compacted: true }, { name: topics.calls }]);
  const replica = new CatalogReplica(logger.child({ component: 'catalog' }));
  await replica.start(bus, topics.catalog, `${config.groupPrefix}-${randomUUID()}`);
  const recorder = new CallRecorder(bus, topics.calls, logger.child({ component: 'calls' }));
  const upstreams = new UpstreamPool(logger.child({ component: 'upstream' }));
  const pipeline = new ToolCallPipeline(replica, upstreams, recorder, config.upstreamTimeoutMs);
  const sessions = new SessionManager(replica, pipeline, logger.child({ component: 'sessions' }), config.sessionIdleMs);
  sessions.start();
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
    configure: (express) => express.use('/mcp', (req: IncomingMessage, res: ServerResponse) => void endpoint(req, res)),
  });
  base ||= url;
  logger.info({ url: `${url}/mcp` }, 'mcp edge listening');
  return {
    url,
    mcpUrl: `${url}/mcp`,
    replica,
    sessions,
    stop: async () => {
      await sessions.closeAll();
      await app.close();
      await recorder.flush();
      await replica.stop();
      await upstreams.close();
    },
  };
}
