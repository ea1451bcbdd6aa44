import { randomUUID } from 'node:crypto';
import type { Type } from '@nestjs/common';
import { estateTopics, openDatabase, PrincipalResolver, serviceHealth, startHttpApp, type EventBus, type Logger } from '@estate/platform';
import type { RegistryConfig } from './config';
import { RegistryModule } from './registry.module';
import { SunsetHandler } from './sunset/sunset.handler';
import { EventLogReader } from './store/event-log.reader';
import { REGISTRY_MIGRATIONS } from './store/migrations';
import { OutboxRelay } from './store/outbox.relay';
import { PostgresEventStore } from './store/postgres-event-store';
import { relayBacklog, relayBacklogCheck } from './store/relay.backlog';
import { registryMetrics } from './store/relay.metrics';

export interface RunningService {
  url: string;
  stop(): Promise<void>;
}

/** The registry's composition root: event store, relay, HTTP. */
export async function startRegistry(config: RegistryConfig & { databaseUrl: string }, bus: EventBus, logger: Logger): Promise<RunningService & { relay: OutboxRelay; useCase<T>(type: Type<T>): T }> {
  const db = await openDatabase({ url: config.databaseUrl, schema: 'registry', migrations: REGISTRY_MIGRATIONS });
  const store = new PostgresEventStore(db, randomUUID, () => new Date());
  const topic = estateTopics(config.topicPrefix, config.callsRetentionMs).registryEvents;
  await bus.ensureTopics([topic]);
  const relay = new OutboxRelay(db, config.databaseUrl, bus, topic, logger.child({ component: 'relay' }));
  await relay.start();
  const resolver = new PrincipalResolver(config.auth);
  const health = serviceHealth(config.health, {
    db,
    checks: [relayBacklogCheck(db, relay, config.health)],
    facts: async () => ({ relay: await relayBacklog(db, relay).catch((error: unknown) => ({ error: String(error) })) }),
  });
  const { app, url } = await startHttpApp({
    module: RegistryModule.with(store, resolver, new EventLogReader(db)),
    health: { report: health, resolver },
    metrics: { registry: registryMetrics(db, relay), token: config.metricsToken },
    logger,
    host: config.host,
    port: config.port,
  });
  const sunsets = app.get(SunsetHandler);
  const sweep = setInterval(() => {
    sunsets.sweep(new Date()).then(
      (retired) => retired > 0 && logger.info({ retired }, 'retired versions past their sunset date'),
      (error: unknown) => logger.warn({ err: error }, 'sunset sweep failed; will retry'),
    );
  }, config.sunsetSweepMs);
  sweep.unref();
  logger.info({ url }, 'registry listening');
  return {
    url,
    relay,
    useCase: (type) => app.get(type),
    stop: async () => {
      clearInterval(sweep);
      await app.close();
      await relay.stop();
      await db.destroy();
    },
  };
}
