import { randomUUID } from 'node:crypto';
import type { CallEvent, EventEnvelope } from '@estate/events';
import { batchBySize, BusClientProxy, injectTraceHeaders, messageBytes, publishOrSetAside, type EventBus, type Logger, type OutgoingMessage } from '@estate/platform';

const FLUSH_MS = 20;
/** Records per send, and bytes per send: well under the calls topic's ~1 MB max.message.bytes (the broker's default). */
const BATCH = 500;
const BATCH_BYTES = 512 * 1024;

/**
 * Publishes every call, refusal and probe to `estate.calls`, keyed by principal. Records are
 * batched off the hot path; a failed send is retried with the next batch.
 */
export class CallRecorder {
  private buffer: OutgoingMessage[] = [];
  private timer?: NodeJS.Timeout;
  private flushing?: Promise<void>;
  private readonly listeners: Array<(event: CallEvent) => void> = [];
  /** Records leave through the bus transport's client: `emit(topic, batch)` completes once the bus holds the batch. */
  private readonly client: BusClientProxy;

  constructor(
    bus: EventBus,
    private readonly topic: string,
    private readonly logger: Logger,
    private readonly clock: () => Date = () => new Date(),
  ) {
    this.client = new BusClientProxy(bus);
  }

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
    // Sent later in a batch: the call's trace is taken now, so audit's record joins it.
    this.buffer.push({ key: principal, value: JSON.stringify(envelope), headers: injectTraceHeaders({ 'estate-type': event.type }) });
    this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS);
  }

  async flush(): Promise<void> {
    this.timer = undefined;
    await this.flushing;
    const pending = this.buffer;
    if (pending.length === 0) return;
    this.buffer = [];
    this.flushing = this.send(pending);
    await this.flushing;
  }

  /**
   * Sends in batches the topic takes (a burst of calls could otherwise add up past its limit and be
   * refused on every retry); what fails for a passing reason goes back to the buffer, in order.
   */
  private async send(pending: OutgoingMessage[]): Promise<void> {
    const batches = batchBySize(pending, messageBytes, BATCH, BATCH_BYTES);
    for (let i = 0; i < batches.length; i += 1) {
      try {
        await this.publishOrDrop(batches[i]);
      } catch (error) {
        const rest = batches.slice(i).flat();
        this.logger.warn({ err: error, count: rest.length }, 'could not publish call records; will retry');
        this.buffer = rest.concat(this.buffer);
        this.timer ??= setTimeout(() => void this.flush(), 500);
        return;
      }
    }
  }

  /** A record the topic refuses for its size is refused on every retry: dropped with one error line instead of blocking the rest. */
  private async publishOrDrop(batch: OutgoingMessage[]): Promise<void> {
    await publishOrSetAside(this.client.publisher, this.topic, batch, (m) => m, async (record, error) => {
      this.logger.error({ topic: this.topic, bytes: messageBytes(record), type: record.headers?.['estate-type'] }, `a call record was refused by ${this.topic} and dropped: ${error.message}`);
    });
  }
}
