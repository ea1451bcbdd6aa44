import { NestFactory } from '@nestjs/core';
import { Module, type DynamicModule, type INestApplication, type INestApplicationContext, type LoggerService } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Logger } from 'pino';
import { HealthModule, type ServiceHealth } from '../health/health.controller';
import type { PrincipalResolver } from '../principal.auth';
import { ProblemFilter } from './problem.filter';
import { guardRequestUrl } from './request-url.guard';
import { BoundedParamsPipe } from './bounded-params.pipe';
import { metricsEndpoint, type MetricsAccess } from '../metrics/metrics.endpoint';
import { resumeRequestTrace, traceRequests } from './request-trace.middleware';
import { logRequests } from './request-log.middleware';
import { jsonBodyReader, limitInBytes, refuseBodiesNotJson } from './json-body.reader';
import { RequestDrain } from './request.drain';

/** Nest's own log lines, routed to pino on stderr. */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}
  log(message: unknown, context?: string): void { this.logger.debug({ context }, String(message)); }
  error(message: unknown, trace?: string, context?: string): void { this.logger.error({ context, trace }, String(message)); }
  warn(message: unknown, context?: string): void { this.logger.warn({ context }, String(message)); }
  debug(message: unknown, context?: string): void { this.logger.debug({ context }, String(message)); }
  verbose(message: unknown, context?: string): void { this.logger.trace({ context }, String(message)); }
}

export interface HttpAppOptions {
  module: unknown;
  logger: Logger;
  host: string;
  port: number;
  bodyLimit?: string;
  /** Raw handlers mounted ahead of Nest's body parsing and routing (the MCP endpoint). */
  configure?: (app: NestExpressApplication) => void;
  /** Serves /healthz, /readyz and /v1/status beside the service's own routes. */
  health?: { report: ServiceHealth; resolver: PrincipalResolver };
  /** Serves /metrics from this service's own registry, ahead of every other route (else the module's METRICS_ACCESS provider, if any). */
  metrics?: MetricsAccess;
}

/** A service module that binds this token gets /metrics served from it. */
export const METRICS_ACCESS = Symbol('MetricsAccess');

/** The module's METRICS_ACCESS, when it binds one. */
function providedMetrics(app: INestApplication): MetricsAccess | undefined {
  try {
    return app.get<MetricsAccess>(METRICS_ACCESS, { strict: false });
  } catch {
    return undefined;
  }
}

@Module({})
class ServiceRoot {}

/** The service's module, with the health routes beside it when asked for. */
function rootModule(options: HttpAppOptions): unknown {
  if (!options.health) return options.module;
  const root: DynamicModule = {
    module: ServiceRoot,
    imports: [options.module as DynamicModule, HealthModule.with(options.health.report, options.health.resolver)],
  };
  return root;
}

const drains = new WeakMap<INestApplicationContext, RequestDrain>();

/**
 * The first thing a stop does: the app's HTTP server takes no new request from here on (request.drain.ts).
 * Nest's close and its shutdown hooks run later and take their time; a stopping service must not
 * accept work meanwhile. A no-op for an app this file did not start.
 */
export function stopTakingRequests(app: INestApplicationContext): void {
  drains.get(app)?.stop();
}

/** Creates, configures and starts one service's HTTP surface. */
export async function startHttpApp(options: HttpAppOptions): Promise<{ app: INestApplication; url: string }> {
  const app = await NestFactory.create<NestExpressApplication>(rootModule(options) as never, {
    logger: new PinoNestLogger(options.logger),
    bodyParser: false,
    abortOnError: false,
  });
  const drain = new RequestDrain(app.getHttpServer());
  drains.set(app, drain);
  app.use(drain.gate);
  // Every close stops taking requests first: Nest closes the HTTP server only after its shutdown hooks.
  const close = app.close.bind(app);
  app.close = () => {
    drain.stop();
    return close();
  };
  const metrics = options.metrics ?? providedMetrics(app);
  if (metrics) app.use(metricsEndpoint(metrics));
  app.use(traceRequests);
  app.use(logRequests(options.logger));
  options.configure?.(app);
  app.use(guardRequestUrl);
  app.use(refuseBodiesNotJson);
  const bodyLimit = options.bodyLimit ?? '1mb';
  const plainLimit = limitInBytes(bodyLimit);
  if (plainLimit !== undefined) app.use(jsonBodyReader(plainLimit));
  app.useBodyParser('json', { limit: bodyLimit });
  app.use(resumeRequestTrace);
  app.disable('x-powered-by');
  app.useGlobalFilters(new ProblemFilter(options.logger));
  app.useGlobalPipes(new BoundedParamsPipe());
  try {
    await app.listen(options.port, options.host);
  } catch (error) {
    // The lifecycle hooks ran before listen (consumers started): a port in use must not leave them running.
    await app.close().catch(() => undefined);
    throw error;
  }
  const address = app.getHttpServer().address() as { port: number };
  return { app, url: `http://${options.host}:${address.port}` };
}
