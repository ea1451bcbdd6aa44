import { Server, type CustomTransportStrategy, type MessageHandler } from '@nestjs/microservices';
import type { EventBus, Subscription } from '../event-bus.port';
import type { Logger } from '../logger';
import { invokeBatch } from './batch.invoker';
import type { BusBinding } from './bus.binding';
import { TransactionalSubscription } from './transactional.subscription';

export interface BusTransportOptions {
  /** Per `@EventPattern` pattern: the topic and group it reads and how positions are kept. */
  bindings: Record<string, BusBinding>;
  logger: Logger;
}

/** The transport's id, for `@EventPattern(pattern, BUS_TRANSPORT)` when an app has several transports. */
export const BUS_TRANSPORT = Symbol('estate-bus');

/**
 * A Nest microservice transport over the EventBus port, so the same consumers run on Kafka and on
 * the embedded PostgreSQL log. A pattern names a logical log (`registryEvents`, `calls`,
 * `catalog`), not an event type: positions are per partition of a log, and one handler must see
 * every message of it in order to store a position that means "everything before is applied".
 * Handlers receive a batch (`BusMessage[]`) and a `BusContext`; topic names, groups and the
 * position stores come from the bindings, since they are configuration, not code.
 */
export class BusTransport extends Server implements CustomTransportStrategy {
  override readonly transportId = BUS_TRANSPORT;
  private readonly running: Array<{ stop(): Promise<void> }> = [];

  constructor(private readonly bus: EventBus, private readonly options: BusTransportOptions) {
    super();
  }

  listen(callback: (error?: unknown) => void): void {
    this.subscribeAll().then(() => callback(), (error: unknown) => callback(error));
  }

  async close(): Promise<void> {
    const running = this.running.splice(0);
    await Promise.all(running.map((s) => s.stop()));
  }

  on(): never {
    throw new Error('the bus transport emits no events of its own');
  }

  unwrap<T>(): T {
    return this.bus as T;
  }

  private async subscribeAll(): Promise<void> {
    for (const [pattern, handler] of this.messageHandlers) {
      if (!handler.isEventHandler) throw new Error(`the bus carries events only: @MessagePattern(${pattern}) has no reply channel`);
      const binding = this.options.bindings[pattern];
      if (!binding) throw new Error(`@EventPattern(${pattern}) has no binding: say which topic and group it reads`);
      this.running.push(await this.subscribeOne(binding, handler));
    }
  }

  private async subscribeOne(binding: BusBinding, handler: MessageHandler): Promise<{ stop(): Promise<void> }> {
    const logger = this.options.logger.child({ topic: binding.topic, group: binding.groupId });
    if (binding.transactional) {
      const subscription = new TransactionalSubscription(this.bus, { ...binding, transactional: binding.transactional }, handler, logger);
      await subscription.start();
      return subscription;
    }
    // The bus keeps the position and moves it only after the handler succeeded: at-least-once.
    const span = binding.spanName ?? `consume ${binding.topic}`;
    const subscription: Subscription = await this.bus.subscribe({
      topic: binding.topic,
      groupId: binding.groupId,
      fromBeginning: binding.fromBeginning ?? true,
      maxBatch: binding.maxBatch,
      handle: async (message) => void (await invokeBatch(handler, [message], undefined, span)),
      handleBatch: async (batch) => {
        for (const work of await invokeBatch(handler, batch.messages, undefined, span)) await work();
      },
    });
    return subscription;
  }
}
