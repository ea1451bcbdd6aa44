import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '@estate/platform';
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

export interface RunningConsole {
  url: string;
  stop(): Promise<void>;
}

/** The console's composition root: static page and scripts, and a proxy to the three services. */
export async function startConsole(config: ConsoleConfig, logger: Logger): Promise<RunningConsole> {
  const serveStatic = staticFiles(staticDir());
  const proxy = apiProxy(config.upstreams, logger);
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
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
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const url = `http://${config.host}:${(server.address() as AddressInfo).port}`;
  logger.info({ url }, 'console listening');
  return {
    url,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // An open event stream would keep close() waiting forever.
        server.closeAllConnections();
      }),
  };
}
