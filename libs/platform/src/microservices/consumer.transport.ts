import type { INestApplication } from '@nestjs/common';
import type { BusTransport } from './bus.transport';

/**
 * The DI token of a service's consumers: its module binds it to a BusTransport built by a factory
 * provider (the monitored bus, the consumer's bindings), so the app that serves HTTP connects it.
 */
export const CONSUMER_TRANSPORT = Symbol('ConsumerTransport');

/**
 * Connects the module's bus transport to the service's HTTP app and starts it. Nest closes it
 * with the app, between `beforeApplicationShutdown` and `onApplicationShutdown`: the consumers
 * stop after the HTTP server and before the lifecycle closes the database and the bus. A consumer
 * that cannot start closes the app, so no HTTP surface is left listening without it.
 */
export async function startConsumers(app: INestApplication): Promise<void> {
  app.connectMicroservice({ strategy: app.get<BusTransport>(CONSUMER_TRANSPORT, { strict: false }) });
  await app.startAllMicroservices().catch(async (error: unknown) => {
    await app.close().catch(() => undefined);
    throw error;
  });
}
