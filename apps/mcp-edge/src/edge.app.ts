import type { IncomingMessage, ServerResponse } from 'node:http';
import { topicName } from '@estate/events';
import { ConsumerMonitor, PrincipalResolver, serviceHealth, startHttpApp, traceRequests, type EventBus, type Logger } from '@estate/platform';
import { isLoopback, type EdgeConfig } from './config';
import { startEdgeCore } from './edge.core';
import { EdgeModule } from './edge.module';
import { answerClientErrors } from './http/client-error.handler';
import { createMcpEndpoint } from './http/mcp.endpoint';
import { serveMcpFirst } from './http/mcp.router';
import { RequestGuard } from './http/request.guard';
import { refuseUnknownRoutes } from './http/unknown-route.handler';
import { edgeRegistry } from './metrics/edge.registry';

/** The edge's composition root: the core (edge.core.ts) behind the /mcp endpoint. */
export async function startEdge(config: EdgeConfig, bus: EventBus, logger: Logger) {
  const monitor = new ConsumerMonitor(bus, config.health);
  const catalogTopic = topicName(config.topicPrefix, 'catalog');
  const { replica, sessions, deadLetters, recorder, stop } = await startEdgeCore(config, monitor.watch(bus, (o) => (o.topic === catalogTopic ? 'catalog' : undefined)), logger);
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
    }),
    // No database: the edge serves from its replica; counts are for administrators only.
    health: {
      report: serviceHealth(config.health, { monitor, consumers: ['catalog'], facts: async () => ({ sessions: sessions.size, tools: replica.size, deadLetters: deadLetters.count }) }),
      resolver,
    },
    metrics: { registry: edgeRegistry({ replica, sessions, recorder, deadLetters, monitor }), token: config.metricsToken },
    logger,
    host: config.host,
    port: config.port,
    configure: (express) => {
      express.use('/mcp', (req: IncomingMessage, res: ServerResponse) => void endpoint(req, res));
      express.use(refuseUnknownRoutes);
    },
  });
  base ||= url;
  answerClientErrors(app.getHttpServer());
  // Ahead of Express, so the request's span is begun here (an agent's traceparent is continued).
  serveMcpFirst(app.getHttpServer(), (req, res) => traceRequests(req, res, () => void endpoint(req, res)));
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
