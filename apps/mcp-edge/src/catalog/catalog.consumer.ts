import { Inject, Module, type DynamicModule, type INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { BusConsumer, BusTransport, PinoNestLogger, type BusContext, type BusMessage, type EventBus, type Logger } from '@estate/platform';
import type { CatalogReplica } from './catalog.replica';

const CATALOG_REPLICA = Symbol('CatalogReplica');

/** The compacted catalog topic as a bus event handler: every record of a batch goes to the replica, in order. */
@BusConsumer()
export class CatalogReplicaController {
  constructor(@Inject(CATALOG_REPLICA) private readonly replica: CatalogReplica) {}

  @EventPattern('catalog')
  catalog(@Payload() messages: BusMessage[], @Ctx() _context: BusContext): Promise<void> {
    return this.replica.receiveBatch(messages);
  }
}

@Module({})
class CatalogConsumerModule {
  static with(replica: CatalogReplica): DynamicModule {
    return { module: CatalogConsumerModule, controllers: [CatalogReplicaController], providers: [{ provide: CATALOG_REPLICA, useValue: replica }] };
  }
}

/**
 * Runs the replica's consumer as a Nest microservice of its own: the stdio edge has no HTTP
 * application to connect it to, and the HTTP edge shares the same core. The bus keeps the group's
 * position (a group per edge instance, read from the start): at-least-once, which a replica keyed
 * by tool name and ordered by catalog position absorbs.
 */
export async function startCatalogConsumer(
  replica: CatalogReplica, bus: EventBus, options: { topic: string; groupId: string; logger: Logger },
): Promise<INestMicroservice> {
  const strategy = new BusTransport(bus, { bindings: { catalog: { topic: options.topic, groupId: options.groupId, spanName: 'edge apply catalog' } }, logger: options.logger });
  const consumer = await NestFactory.createMicroservice(CatalogConsumerModule.with(replica), { strategy, logger: new PinoNestLogger(options.logger), abortOnError: false });
  await consumer.listen();
  return consumer;
}
