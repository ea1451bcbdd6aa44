import type { INestApplication } from '@nestjs/common';
import { startHttpApp, type EventBus, type Logger, type StopStep } from '@estate/platform';
import { AuditModule, type AuditOptions } from './audit.module';
import type { AuditConfig } from './config';

export type { AuditOptions };

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
  logger.info({ url }, 'audit listening');
  return { app, url, stop: () => app.close() };
}
