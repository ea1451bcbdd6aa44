import { topicName } from '@estate/events';
import {
  ConsumerMonitor, DeadLetterOffice, estateTopics, openDatabase, PrincipalResolver, registerConsumerMetrics, registerDeadLetterMetrics, serviceHealth,
  serviceRegistry, startHttpApp, type EventBus, type Logger,
} from '@estate/platform';
import { AuditConsumer } from './audit.consumer';
import type { AuditConfig } from './config';
import { AuditModule } from './audit.module';
import { AuditRepository } from './store/audit.repository';
import { AUDIT_ENTITIES, AUDIT_MIGRATIONS } from './store/migrations';
import { ToolChangeFeed } from './stream/tool-change.feed';
import { TrailCompleteness } from './trail.completeness';

export interface RunningAudit {
  url: string;
  stop(): Promise<void>;
}

/** Tests shorten the heartbeat; production keeps 15 s. */
export interface AuditOptions {
  heartbeatMs?: number;
}

/** Audit's composition root: trail consumer, tool-change feed, HTTP. */
export async function startAudit(
  config: AuditConfig & { databaseUrl: string },
  bus: EventBus,
  logger: Logger,
  options: AuditOptions = {},
): Promise<RunningAudit> {
  const db = await openDatabase({ url: config.databaseUrl, schema: 'audit', migrations: AUDIT_MIGRATIONS, entities: AUDIT_ENTITIES });
  const repo = new AuditRepository(db);
  const specs = estateTopics(config.topicPrefix, config.callsRetentionMs);
  const topics = { registryEvents: specs.registryEvents.name, calls: specs.calls.name };
  await bus.ensureTopics([specs.registryEvents, specs.calls]);
  const feed = new ToolChangeFeed(
    repo,
    { registryTopic: topics.registryEvents, databaseUrl: config.databaseUrl, heartbeatMs: options.heartbeatMs ?? 15_000 },
    logger.child({ component: 'event-stream' }),
  );
  await feed.start();
  const monitor = new ConsumerMonitor(bus, config.health);
  // The consumer's groups are `${groupId}.<topic key>` (audit.consumer.ts).
  const names = new Map([[`${config.groupId}.registryEvents`, 'registry-events'], [`${config.groupId}.calls`, 'calls']]);
  const deadLetters = new DeadLetterOffice(bus, topicName(config.topicPrefix, 'deadLetter'), 'audit', logger.child({ component: 'dead-letters' }));
  await deadLetters.prepare();
  const consumer = new AuditConsumer(repo, monitor.watch(bus, (o) => names.get(o.groupId)), topics, config.groupId, logger.child({ component: 'recorder' }), deadLetters);
  await consumer.start();
  const trail = new TrailCompleteness(repo, bus, [topics.registryEvents, topics.calls]);
  const resolver = new PrincipalResolver(config.auth);
  const metrics = serviceRegistry('audit');
  registerConsumerMetrics(metrics, monitor);
  registerDeadLetterMetrics(metrics, deadLetters);
  const { app, url } = await startHttpApp({
    module: AuditModule.with(repo, feed, resolver, trail),
    health: { report: serviceHealth(config.health, { db, monitor, consumers: [...names.values()] }), resolver },
    metrics: { registry: metrics, token: config.metricsToken },
    logger,
    host: config.host,
    port: config.port,
  });
  logger.info({ url }, 'audit listening');
  return {
    url,
    stop: async () => {
      await feed.stop();
      await app.close();
      await consumer.stop();
      await db.destroy();
    },
  };
}
