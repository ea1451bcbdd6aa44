import type { INestApplication } from '@nestjs/common';
import type { AddressInfo } from 'node:net';
import { startConsumers, startHttpApp, type EventBus, type Logger, type StopStep } from '@estate/platform';
import { AdvertisedAddress } from './advertised.address';
import { AuditModule, type AuditOptions } from './audit.module';
import type { AuditConfig } from './config';
import { WebhookLifecycle } from './webhooks/webhook.lifecycle';

export type { AuditOptions };
/** How audit names the address it listens on; the composition names it the same way to the registry. */
export { listeningUrl } from './advertised.address';

export interface RunningAudit {
  app: INestApplication;
  url: string;
  /** Nest's close: the shutdown hooks of audit.lifecycle.ts. */
  stop(): Promise<void>;
}

/**
 * Audit as a Nest application listening on its port (AuditModule binds the parts).
 * `bus` undefined: the module builds its own from the config; `owned` are closed after it.
 */
export async function startAudit(
  config: AuditConfig & { databaseUrl: string },
  bus: EventBus | undefined,
  logger: Logger,
  options: AuditOptions & { owned?: StopStep[] } = {},
): Promise<RunningAudit> {
  const { app, url } = await startHttpApp({
    module: AuditModule.forRoot(config, { bus, logger, owned: options.owned }, options),
    logger,
    host: config.host,
    port: config.port,
  });
  // Set before anything is served (no request is read until this turn of the event loop ends): the
  // port may have been picked only now. The webhook workers start after it, as they send the address.
  app.get(AdvertisedAddress).listeningOn(config.host, (app.getHttpServer().address() as AddressInfo).port);
  try {
    await app.get(WebhookLifecycle).start();
    // The recorder: the module's bus transport as a microservice of this app, closed with it.
    await startConsumers(app);
  } catch (error) {
    await app.close().catch(() => undefined);
    throw error;
  }
  logger.info({ url }, 'audit listening');
  return { app, url, stop: () => app.close() };
}
