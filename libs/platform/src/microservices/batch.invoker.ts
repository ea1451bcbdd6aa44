import type { MessageHandler } from '@nestjs/microservices';
import { isObservable, lastValueFrom } from 'rxjs';
import type { BusMessage } from '../event-bus.port';
import { withMessageSpan } from '../tracing/message.trace';
import { BusContext, type BatchPosition } from './bus.context';
import type { QueryRunner } from 'typeorm';

/**
 * Calls a Nest event handler with a batch and its context and waits for it to finish. Nest wraps
 * handlers so that a failure comes back as a failing Observable; it is turned back into a thrown
 * error here, so the transport can retry or dead-letter instead of losing it.
 */
export async function invokeBatch(
  handler: MessageHandler, messages: BusMessage[], runner: QueryRunner | undefined, spanName: string, position?: BatchPosition,
): Promise<Array<() => Promise<void>>> {
  const first = messages[0];
  const last = messages[messages.length - 1];
  const afterCommit: Array<() => Promise<void>> = [];
  const context = new BusContext([
    { topic: first.topic, partition: first.partition, firstOffset: first.offset, lastOffset: last.offset }, runner, afterCommit, position,
  ]);
  // The span continues the newest message's trace: what a batch did is found from its last event.
  await withMessageSpan(spanName, last, async () => {
    const result: unknown = await handler(messages, context);
    if (isObservable(result)) await lastValueFrom(result, { defaultValue: undefined });
  });
  return afterCommit;
}
