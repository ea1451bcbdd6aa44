import { estateTopics, openDatabase, PrincipalResolver, startHttpApp, type EventBus, type Logger } from '@estate/platform';
import { AuditConsumer } from './audit.consumer';
import type { AuditConfig } from './config';
import { AuditModule } from './audit.module';
import { AuditRepository } from './store/audit.repository';
import { AUDIT_MIGRATIONS } from './store/migrations';
import { ToolChangeFeed } from './stream/tool-change.feed';

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
  const db = await openDatabase({ url: config.databaseUrl, schema: 'audit', migrations: AUDIT_MIGRATIONS });
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
  const consumer = new AuditConsumer(repo, bus, topics, config.groupId, logger.child({ component: 'recorder' }));
  await consumer.start();
  const { app, url } = await startHttpApp({
    module: AuditModule.with(repo, feed, new PrincipalResolver(config.auth)),
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
