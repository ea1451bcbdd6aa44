import 'reflect-metadata';
import { parentPort, workerData } from 'node:worker_threads';
import { createLogger, startTracing, type Env } from '@estate/platform';
import { composeEstate, type EstateService } from './estate.composition';

/** What the main thread hands the services thread (estate.threads.ts). */
export interface ServicesThreadStart {
  env: Env;
  databaseUrl: string;
  services: EstateService[];
  logLevel: string;
  logFormat?: 'json' | 'pretty' | 'auto';
  /** Settings for one service only, over `env`. */
  overrides?: Partial<Record<EstateService, Env>>;
}

/** What the services thread tells the main thread, in this order: started (or failed), then stopped. */
export type ServicesThreadReport =
  | { kind: 'started'; urls: { edge?: string; discovery?: string; audit?: string } }
  | { kind: 'failed'; error: unknown }
  | { kind: 'stopped' };

/**
 * The second thread of `npm start`: the services that consume the bus (discovery, audit, the
 * edge) composed exactly as on the main thread, with a bus of their own on the same log. They run
 * until the main thread asks them to stop, then stop in the composition's order and say so.
 */
async function run(port: NonNullable<typeof parentPort>, start: ServicesThreadStart): Promise<void> {
  const logger = createLogger('estate', start.logLevel, { format: start.logFormat });
  const tracing = startTracing(start.env, 'estate');
  let estate;
  try {
    estate = await composeEstate({ env: start.env, databaseUrl: start.databaseUrl, logger, services: start.services, overrides: start.overrides });
  } catch (error) {
    await tracing?.shutdown().catch(() => undefined);
    port.postMessage({ kind: 'failed', error } satisfies ServicesThreadReport);
    return;
  }
  const running = estate;
  port.on('message', (message: unknown) => {
    if (message !== 'stop') return;
    void (async () => {
      await running.stop().catch((error: unknown) => logger.warn({ err: error }, 'a service of the second thread did not stop cleanly'));
      await tracing?.shutdown().catch(() => undefined);
      port.postMessage({ kind: 'stopped' } satisfies ServicesThreadReport);
      port.close();
    })();
  });
  port.postMessage({
    kind: 'started', urls: { edge: running.edge?.mcpUrl, discovery: running.discovery?.url, audit: running.audit?.url },
  } satisfies ServicesThreadReport);
}

if (parentPort) void run(parentPort, workerData as ServicesThreadStart);
