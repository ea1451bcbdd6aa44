import type { IncomingMessage, ServerResponse } from 'node:http';
import type { INestApplication } from '@nestjs/common';
import { jwtExpiry, LOGGER, PRINCIPAL_RESOLVER, startHttpApp, traceRequests, type EventBus, type Logger, type PrincipalResolver, type StopStep } from '@estate/platform';
import { CatalogReplica } from './catalog/catalog.replica';
import type { EdgeConfig } from './config';
import { EdgeAddress, EdgeModule } from './edge.module';
import { answerClientErrors } from './http/client-error.handler';
import { createMcpEndpoint } from './http/mcp.endpoint';
import { serveMcpFirst } from './http/mcp.router';
import { RequestGuard } from './http/request.guard';
import { statelessEndpointDeps } from './http/stateless.wiring';
import { PrimitiveProxyExtension } from './proxy/primitive-proxy.extension';
import { ToolCallPipeline } from './mcp/tool-call.pipeline';
import { refuseUnknownRoutes } from './http/unknown-route.handler';
import { SessionManager } from './sessions/session.manager';
import { openSpentStates } from './store/spent-states.opener';

export interface RunningEdge {
  app: INestApplication;
  url: string;
  mcpUrl: string;
  replica: CatalogReplica;
  sessions: SessionManager;
  /** Nest's close: the shutdown hooks of edge-core.lifecycle.ts. */
  stop(): Promise<void>;
}

/**
 * The HTTP edge as a Nest application (EdgeModule binds the parts), with the raw /mcp endpoint
 * mounted ahead of Nest's routing. `bus` undefined: the module builds its own from the config.
 */
export async function startEdge(config: EdgeConfig, bus: EventBus | undefined, logger: Logger, options: { owned?: StopStep[] } = {}): Promise<RunningEdge> {
  let endpoint: ((req: IncomingMessage, res: ServerResponse) => Promise<void>) | undefined;
  const spent = await openSpentStates(config, logger);
  const owned = [...(options.owned ?? []), { name: 'spent-states', stop: () => spent.close() }];
  const { app, url } = await startHttpApp({
    module: EdgeModule.forRoot(config, { bus, logger, owned }),
    logger,
    host: config.host,
    port: config.port,
    configure: (express) => {
      const mcp = createMcpEndpoint({
        sessions: express.get(SessionManager),
        resolver: express.get<PrincipalResolver>(PRINCIPAL_RESOLVER),
        guard: express.get(RequestGuard),
        maxBodyBytes: config.maxBodyBytes,
        logger: express.get<Logger>(LOGGER),
        expiryOf: config.auth.mode === 'jwt' ? jwtExpiry() : undefined,
        stateless: statelessEndpointDeps(config, express.get(CatalogReplica), express.get(ToolCallPipeline), express.get(SessionManager), express.get<Logger>(LOGGER), express.get(PrimitiveProxyExtension), spent),
      });
      endpoint = mcp;
      express.use('/mcp', (req: IncomingMessage, res: ServerResponse) => void mcp(req, res));
      express.use(refuseUnknownRoutes);
    },
  });
  const address = app.get(EdgeAddress);
  address.base ||= url;
  answerClientErrors(app.getHttpServer());
  // Ahead of Express, so the request's span is begun here (an agent's traceparent is continued).
  const mcp = endpoint as NonNullable<typeof endpoint>;
  serveMcpFirst(app.getHttpServer(), (req, res) => traceRequests(req, res, () => void mcp(req, res)));
  logger.info({ url: `${url}/mcp` }, 'mcp edge listening');
  return { app, url, mcpUrl: `${url}/mcp`, replica: app.get(CatalogReplica), sessions: app.get(SessionManager), stop: () => app.close() };
}
