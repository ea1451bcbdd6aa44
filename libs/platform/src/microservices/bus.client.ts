import { ClientProxy, type ReadPacket, type WritePacket } from '@nestjs/microservices';
import { lastValueFrom } from 'rxjs';
import type { EventBus, OutgoingMessage } from '../event-bus.port';

/**
 * The producer side of the bus transport: `emit(topic, messages)` publishes through the EventBus
 * port (Kafka or the embedded log) and completes once the bus acknowledged the whole batch.
 * Events only: there is no reply channel, so `send` is refused.
 */
export class BusClientProxy extends ClientProxy {
  constructor(private readonly bus: EventBus) {
    super();
  }

  async connect(): Promise<void> {
    // The bus connects on first use; nothing to open here.
  }

  async close(): Promise<void> {
    // The bus belongs to the composition root, which closes it after every service stopped.
  }

  unwrap<T>(): T {
    return this.bus as T;
  }

  /** Emits a batch and waits for the bus: a producer that must not lose an event awaits this, not the Observable. */
  async emitBatch(topic: string, messages: OutgoingMessage[]): Promise<void> {
    await lastValueFrom(this.emit<void, OutgoingMessage[]>(topic, messages), { defaultValue: undefined });
  }

  /** A publisher for helpers that take the bus's `publish` shape (publishOrSetAside), routed through `emit`. */
  get publisher(): Pick<EventBus, 'publish'> {
    return { publish: (topic, messages) => this.emitBatch(topic, messages) };
  }

  protected async dispatchEvent<T = unknown>(packet: ReadPacket<OutgoingMessage | OutgoingMessage[]>): Promise<T> {
    const messages = Array.isArray(packet.data) ? packet.data : [packet.data];
    await this.bus.publish(String(packet.pattern), messages);
    return undefined as T;
  }

  protected publish(_packet: ReadPacket, callback: (packet: WritePacket) => void): () => void {
    callback({ err: new Error('the bus carries events only; use emit'), isDisposed: true });
    return () => undefined;
  }
}
