import { topicName } from '@estate/events';
import {
  ConsumerMonitor, DeadLetterOffice, estateTopics, openDatabase, PrincipalResolver, serviceHealth, startHttpApp, type EventBus, type Logger,
} from '@estate/platform';
import { CatalogProjector } from './catalog.projector';
import type { DiscoveryConfig } from './config';
import { discoveryRegistry } from './discovery.metrics';
import { DiscoveryModule } from './discovery.module';
import { RegistryEventsClient } from './registry-events.client';
import { CatalogRepository } from './store/catalog.repository';
import { DISCOVERY_ENTITIES, DISCOVERY_MIGRATIONS } from './store/migrations';

/** Discovery's composition root: projection consumer, catalog publisher, HTTP. */
export async function startDiscovery(config: DiscoveryConfig & { databaseUrl: string }, bus: EventBus, logger: Logger) {
  const db = await openDatabase({ url: config.databaseUrl, schema: 'discovery', migrations: DISCOVERY_MIGRATIONS, entities: DISCOVERY_ENTITIES });
  const repo = new CatalogRepository(db);
  const specs = estateTopics(config.topicPrefix, config.callsRetentionMs);
  const topics = { events: specs.registryEvents.name, catalog: specs.catalog.name };
  await bus.ensureTopics([specs.registryEvents, specs.catalog]);
  const auth = config.auth.mode === 'jwt' ? config.auth : undefined;
  const source = config.registryUrl === undefined ? undefined : new RegistryEventsClient({
    registryUrl: config.registryUrl, serviceToken: config.serviceToken, jwtSecret: auth?.secret, issuer: auth?.issuer, audience: auth?.audience,
  });
  // The monitor watches the live consumer only; a rebuild reads the topic under a throwaway group.
  const monitor = new ConsumerMonitor(bus, config.health);
  const watched = monitor.watch(bus, (o) => (o.groupId === config.groupId ? 'projector' : undefined));
  const deadLetters = new DeadLetterOffice(bus, topicName(config.topicPrefix, 'deadLetter'), 'discovery', logger.child({ component: 'dead-letters' }));
  await deadLetters.prepare();
  const metrics = discoveryRegistry(monitor, deadLetters);
  const projector = new CatalogProjector(
    repo, watched, topics, config.groupId, logger.child({ component: 'projector' }), deadLetters, { source, timeoutMs: config.rebuildTimeoutMs, watch: metrics.rebuilds },
  );
  await projector.start();
  const resolver = new PrincipalResolver(config.auth);
  const { app, url } = await startHttpApp({
    module: DiscoveryModule.with(repo, projector, resolver),
    health: { report: serviceHealth(config.health, { db, monitor, consumers: ['projector'] }), resolver },
    metrics: { registry: metrics.registry, token: config.metricsToken },
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
