import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  Inject, Injectable, Module, type BeforeApplicationShutdown, type DynamicModule, type INestApplicationContext, type OnApplicationBootstrap,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { LOGGER, PinoNestLogger, SERVICE_CONFIG, type Logger, type ServicePorts } from '@estate/platform';
import { apiProxy } from './api.proxy';
import type { ConsoleConfig } from './config';
import { staticDir, staticFiles } from './static.files';

/**
 * Everything the page may load comes from this origin; no inline script or style, no framing.
 * Tool descriptions are untrusted text: the scripts render them as text nodes, and this policy
 * is the second wall should one ever slip through as markup.
 */
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
};

/** The console's HTTP server: listens when the application bootstraps, closes when it shuts down. */
@Injectable()
export class ConsoleServer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly server: Server;
  url = '';

  constructor(@Inject(SERVICE_CONFIG) private readonly config: ConsoleConfig, @Inject(LOGGER) private readonly logger: Logger) {
    this.server = consoleServer(config, logger);
  }

  async onApplicationBootstrap(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.config.port, this.config.host, () => resolve());
    });
    this.url = `http://${this.config.host}:${(this.server.address() as AddressInfo).port}`;
    this.logger.info({ url: this.url }, 'console listening');
  }

  beforeApplicationShutdown(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      // An open event stream would keep close() waiting forever.
      this.server.closeAllConnections();
    });
  }
}

/** The console: static page and scripts, and a proxy to the three services; no Nest HTTP adapter, its own headers on every answer. */
@Module({})
export class ConsoleModule {
  static forRoot(config: ConsoleConfig, ports: Pick<ServicePorts, 'logger'>): DynamicModule {
    return {
      module: ConsoleModule,
      providers: [{ provide: SERVICE_CONFIG, useFactory: () => config }, { provide: LOGGER, useFactory: () => ports.logger }, ConsoleServer],
    };
  }
}

export interface RunningConsole {
  app: INestApplicationContext;
  url: string;
  stop(): Promise<void>;
}

/** The console as a Nest application context, listening once it returns. */
export async function startConsole(config: ConsoleConfig, logger: Logger): Promise<RunningConsole> {
  const app = await NestFactory.createApplicationContext(ConsoleModule.forRoot(config, { logger }), { logger: new PinoNestLogger(logger), abortOnError: false });
  await app.init();
  return { app, url: app.get(ConsoleServer).url, stop: () => app.close() };
}

function consoleServer(config: ConsoleConfig, logger: Logger): Server {
  const serveStatic = staticFiles(staticDir());
  const proxy = apiProxy(config.upstreams, logger);
  return createServer((req: IncomingMessage, res: ServerResponse) => {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
    if ((req.url ?? '').startsWith('/api/')) {
      proxy(req, res).catch((error: Error) => {
        logger.error({ err: error.message }, 'console proxy failed');
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: 'INTERNAL', message: 'the console could not relay the request' }));
      });
      return;
    }
    if (req.url === '/healthz') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end('{"status":"ok"}');
    }
    serveStatic(req, res);
  });
}
