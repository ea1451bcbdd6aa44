// Must stay the first import: it moves every console print to stderr before anything else loads.
import './stdout.guard';
import { PassThrough } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Principal } from '@estate/contracts';
import type { JsonRpcRequest } from '@estate/protocol';
import { NestFactory } from '@nestjs/core';
import { createLogger, failBoot, joinEstateOrKafka, jwtExpiry, PinoNestLogger, PrincipalResolver, startTracing, stopOnSignals, type Logger } from '@estate/platform';
import { CatalogReplica } from '../catalog/catalog.replica';
import { EdgeCoreModule } from '../edge-core.module';
import { statelessEndpointDeps } from '../http/stateless.wiring';
import { PrimitiveProxyExtension } from '../proxy/primitive-proxy.extension';
import { openSpentStates } from '../store/spent-states.opener';
import { ToolCallPipeline } from '../mcp/tool-call.pipeline';
import { SessionManager } from '../sessions/session.manager';
import { loadStdioConfig, type StdioEdgeConfig } from './stdio.config';
import { StdioGate } from './stdio.gate';
import { StdioStatelessHandler } from './stdio-stateless.handler';

/**
 * The edge over stdio, for local clients that spawn their servers (`npm run edge:stdio`): one
 * session, its principal from ESTATE_STDIO_TOKEN (or ESTATE_AUTH=none), the catalog from Kafka
 * like the HTTP edge, or, without KAFKA_BROKERS, from the durable log of the embedded estate
 * running beside it. stdout carries protocol messages only; every log goes to stderr.
 */
async function resolvePrincipal(config: StdioEdgeConfig): Promise<Principal> {
  const resolved = await new PrincipalResolver(config.auth).resolve(config.token === undefined ? undefined : `Bearer ${config.token}`);
  if (!resolved.ok) throw new Error(`ESTATE_STDIO_TOKEN is ${resolved.reason === 'missing' ? 'missing or malformed' : 'not a valid token for this estate'}`);
  return resolved.principal;
}

async function serve(config: StdioEdgeConfig, logger: Logger): Promise<void> {
  const principal = await resolvePrincipal(config);
  // After the stdout guard: even OTEL_TRACES_EXPORTER=console prints to stderr, never into the protocol.
  const tracing = startTracing(process.env, 'estate-mcp-edge-stdio');
  // The edge's core without an HTTP server; its module builds the bus and closes it (and tracing) last.
  const spent = await openSpentStates(config, logger);
  const core = await NestFactory.createApplicationContext(
    EdgeCoreModule.forRoot(config, { logger, owned: [{ name: 'spent-states', stop: () => spent.close() }, ...(tracing ? [{ name: 'tracing', stop: () => tracing.shutdown() }] : [])] }),
    { logger: new PinoNestLogger(logger), abortOnError: false },
  );
  await core.init();
  const stop = () => core.close();
  // A client that kills us still gets its pending call records published.
  stopOnSignals(logger, stop);
  // The SDK's own stdin reader would drop garbage silently; the gate reads stdin instead.
  const transport = new StdioServerTransport(new PassThrough(), process.stdout);
  const sessions = core.get(SessionManager);
  const session = sessions.attach(principal, transport);
  // The token was read once, at start: when it expires the session is told nothing more and every request is refused.
  const rightsUntil = config.auth.mode === 'jwt' ? jwtExpiry()(principal, `Bearer ${config.token}`) : undefined;
  session.rightsUntil = rightsUntil;
  logger.info({ principal: principal.id, session: session.id, ...(rightsUntil ? { tokenExpires: new Date(rightsUntil).toISOString() } : {}) }, 'mcp edge serving stdio');
  const { dispatcher, listeners, primitives } = statelessEndpointDeps(config, core.get(CatalogReplica), core.get(ToolCallPipeline), sessions, logger, core.get(PrimitiveProxyExtension), spent);
  const stateless = new StdioStatelessHandler({ dispatcher, listeners, principal, ...(primitives ? { primitives } : {}) }, (message) => transport.send(message), logger);
  const answerUnfit = (request: JsonRpcRequest) => sessions.answerUnfit(session, request);
  await new StdioGate(session, transport, logger, { stateless, rightsUntil, answerUnfit }).run(process.stdin);
  logger.info('stdin closed; stopping');
  await stop();
}

async function main(): Promise<void> {
  let logger = createLogger('mcp-edge-stdio', 'info');
  try {
    const config = loadStdioConfig(joinEstateOrKafka(process.env, logger));
    logger = createLogger('mcp-edge-stdio', config.logLevel, { format: config.logFormat });
    await serve(config, logger);
    logger.flush(() => process.exit(0));
  } catch (error) {
    failBoot(logger, error);
  }
}

void main();
