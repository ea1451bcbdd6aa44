import { topicName } from '@estate/events';
import { DeadLetterOffice, openDatabase, PrincipalResolver, startHttpApp, type EventBus, type Logger } from '@estate/platform';
import { CatalogProjector } from './catalog.projector';
import type { DiscoveryConfig } from './config';
import { DiscoveryModule } from './discovery.module';
import { CatalogRepository } from './store/catalog.repository';
import { DISCOVERY_MIGRATIONS } from './store/migrations';

/** Discovery's composition root: projection consumer, catalog publisher, HTTP. */
export async function startDiscovery(config: DiscoveryConfig & { databaseUrl: string }, bus: EventBus, logger: Logger) {
  const db = await openDatabase({ url: config.databaseUrl, schema: 'discovery', migrations: DISCOVERY_MIGRATIONS });
  const repo = new CatalogRepository(db);
  const topics = { events: topicName(config.topicPrefix, 'registryEvents'), catalog: topicName(config.topicPrefix, 'catalog') };
  await bus.ensureTopics([{ name: topics.events }, { name: topics.catalog, compacted: true }]);
  const deadLetters = new DeadLetterOffice(bus, topicName(config.topicPrefix, 'deadLetter'), 'discovery', logger.child({ component: 'dead-letters' }));
  await deadLetters.prepare();
  const projector = new CatalogProjector(repo, bus, topics, config.groupId, logger.child({ component: 'projector' }), deadLetters);
  await projector.start();
  const { app, url } = await startHttpApp({
    module: DiscoveryModule.with(repo, projector, new PrincipalResolver(config.auth)),
    logger,
    host: config.host,
    port: config.port,
  });
  logger.info({ url }, 'discovery listening');
  return {
    url,
    projector,
    repo,
    stop: async () => {
      await app.close();
      await projector.stop();
      await db.destroy();
    },
  };
}
