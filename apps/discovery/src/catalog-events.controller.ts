import { Inject } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { BusConsumer, type BusContext, type BusMessage } from '@estate/platform';
import { CatalogProjector } from './catalog.projector';

/** The registry log as a bus event handler: each batch is applied in the transaction the transport commits with its position. */
@BusConsumer()
export class CatalogEventsController {
  constructor(@Inject(CatalogProjector) private readonly projector: CatalogProjector) {}

  @EventPattern('registryEvents')
  registryEvents(@Payload() messages: BusMessage[], @Ctx() context: BusContext): Promise<void> {
    return this.projector.applyBatch(messages, context);
  }
}
