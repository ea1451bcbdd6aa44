import { randomUUID } from 'node:crypto';
import type { CallEvent, EventEnvelope } from '@estate/events';
import { injectTraceHeaders, type EventBus, type Logger, type OutgoingMessage } from '@estate/platform';

const FLUSH_MS = 20;

/**
 * Publishes every call, refusal and probe to `estate.calls`, keyed by principal. Records are
 * batched off the hot path; a failed send is retried with the next batch.
 */
export class CallRecorder {
  private buffer: OutgoingMessage[] = [];
  private timer?: NodeJS.Timeout;
  private flushing?: Promise<void>;

  constructor(
    private readonly bus: EventBus,
    private readonly topic: string,
    private readonly logger: Logger,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  record(event: CallEvent, sessionId: string | undefined): void {
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
    // Sent later in a batch: the call's trace is taken now, so audit's record joins it.
    this.buffer.push({ key: principal, value: JSON.stringify(envelope), headers: injectTraceHeaders({ 'estate-type': event.type }) });
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
