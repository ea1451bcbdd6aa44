import { randomUUID } from 'node:crypto';
import type { CallEvent, EventEnvelope } from '@estate/events';
import type { EventBus, Logger, OutgoingMessage } from '@estate/platform';

const FLUSH_MS = 20;

/**
 * Publishes every call, refusal and probe to `estate.calls`, keyed by principal. Records are
 * batched off the hot path; a failed send is retried with the next batch.
 */
export class CallRecorder {
  private buffer: OutgoingMessage[] = [];
  private timer?: NodeJS.Timeout;
  private flushing?: Promise<void>;
  private readonly listeners: Array<(event: CallEvent) => void> = [];

  constructor(
    private readonly bus: EventBus,
    private readonly topic: string,
    private readonly logger: Logger,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** Hears every record as it is made (the metrics); a listener must not throw. */
  onRecord(listener: (event: CallEvent) => void): void {
    this.listeners.push(listener);
  }

  record(event: CallEvent, sessionId: string | undefined): void {
    for (const listener of this.listeners) listener(event);
    const principal = event.data.principal;
    const envelope: EventEnvelope = {
      id: randomUUID(),
      type: event.type,
      version: event.version,
      stream: `principal:${principal}`,
      position: 0,
      occurredAt: this.clock().toISOString(),
      actor: principal,
      correlationId: sessionId ?? 'none',
      data: event.data,
    };
    this.buffer.push({ key: principal, value: JSON.stringify(envelope), headers: { 'estate-type': event.type } });
    this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS);
  }

  async flush(): Promise<void> {
    this.timer = undefined;
    await this.flushing;
    const batch = this.buffer;
    if (batch.length === 0) return;
    this.buffer = [];
    this.flushing = this.bus.publish(this.topic, batch).catch((error: unknown) => {
      this.logger.warn({ err: error, count: batch.length }, 'could not publish call records; will retry');
      this.buffer = batch.concat(this.buffer);
      this.timer ??= setTimeout(() => void this.flush(), 500);
    });
    await this.flushing;
  }
}
