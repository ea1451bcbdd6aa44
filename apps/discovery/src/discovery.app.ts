import { topicName } from '@estate/events';
import { ConsumerMonitor, DeadLetterOffice, openDatabase, PrincipalResolver, serviceHealth, startHttpApp, type EventBus, type Logger } from '@estate/platform';
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
  // The monitor watches the live consumer only; a rebuild reads the topic under a throwaway group.
  const monitor = new ConsumerMonitor(bus, config.health);
  const watched = monitor.watch(bus, (o) => (o.groupId === config.groupId ? 'projector' : undefined));
  const deadLetters = new DeadLetterOffice(bus, topicName(config.topicPrefix, 'deadLetter'), 'discovery', logger.child({ component: 'dead-letters' }));
  await deadLetters.prepare();
  const projector = new CatalogProjector(repo, watched, topics, config.groupId, logger.child({ component: 'projector' }), deadLetters);
  await projector.start();
  const resolver = new PrincipalResolver(config.auth);
  const { app, url } = await startHttpApp({
    module: DiscoveryModule.with(repo, projector, resolver),
    health: { report: serviceHealth(config.health, { db, monitor, consumers: ['projector'] }), resolver },
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
