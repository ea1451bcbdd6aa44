import { Inject } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { BusConsumer, type BusContext, type BusMessage } from '@estate/platform';
import { AuditConsumer } from './audit.consumer';

/** The trail's two logs as bus event handlers: each batch goes to the recorder in the transport's transaction. */
@BusConsumer()
export class AuditEventsController {
  constructor(@Inject(AuditConsumer) private readonly consumer: AuditConsumer) {}

  @EventPattern('registryEvents')
  registryEvents(@Payload() messages: BusMessage[], @Ctx() context: BusContext): Promise<void> {
    return this.consumer.record('registry', messages, context);
  }

  @EventPattern('calls')
  calls(@Payload() messages: BusMessage[], @Ctx() context: BusContext): Promise<void> {
    return this.consumer.record('calls', messages, context);
  }
}
