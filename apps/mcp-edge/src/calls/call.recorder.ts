import { callEnvelopeText, type CallEvent } from '@estate/events';
import { batchBySize, BusClientProxy, injectTraceHeaders, messageBytes, publishOrSetAside, timeOrderedEventId, type EventBus, type Logger, type OutgoingMessage } from '@estate/platform';
import { CallSpool, type SpooledLine, type SpoolOptions } from './call.spool';
import { messageOfLine, spoolLine } from './spool.line';

/**
 * How long a record waits for others before its batch goes to the bus (it is in the spool
 * meanwhile). A send costs ~1.2 ms of CPU whatever its size, a record ~10 µs more
 * (bench/call-records.cpu.ts): at 20 ms an edge answering 1,000 calls a second paid ~70 µs per
 * call, at 100 ms ~20 µs. The send also holds up whichever call is being served when it runs
 * (and the one its acknowledgement lands in): at 100 ms that was 2 % of sequential calls, enough
 * to set their p99 (bench/edge-latency.compare.ts counts them); at 500 ms it is 0.4 %. Audit
 * sees a call up to this much later.
 */
const FLUSH_MS = 500;
/** Records per send, and bytes per send: well under the calls topic's ~1 MB max.message.bytes (the broker's default). */
const BATCH = 500;
const BATCH_BYTES = 512 * 1024;
/** After a failed send: wait this long, doubling up to the last, while the bus is away. */
const RETRY_MS = [250, 500, 1000, 2000, 5000];
/** How long shutdown waits for the bus to take what is left; the rest stays in the spool for the next start. */
const CLOSE_WAIT_MS = 5000;

interface Pending {
  message: OutgoingMessage;
  line: SpooledLine;
}

export interface CallRecorderOptions {
  topic: string;
  spool: SpoolOptions;
  clock?: () => Date;
}

/**
 * Publishes every call, refusal and probe to `estate.calls`, keyed by principal. A record is
 * accepted into the spool (call.spool.ts) with its event id before the call is answered, and
 * sent in batches afterwards; the spool lets it go only once the bus has it. While the bus is
 * away records wait in the spool; when it holds `maxBytes`, `accepting` turns false and the edge
 * refuses new calls rather than forward a call it could not record.
 */
export class CallRecorder {
  private buffer: Pending[] = [];
  private timer?: NodeJS.Timeout;
  private flushing?: Promise<void>;
  private failures = 0;
  private closed = false;
  private readonly listeners: Array<(event: CallEvent) => void> = [];
  /** Records leave through the bus transport's client: `emit(topic, batch)` completes once the bus holds the batch. */
  private readonly client: BusClientProxy;
  private readonly spool: CallSpool;
  private readonly topic: string;
  private readonly clock: () => Date;

  constructor(bus: EventBus, options: CallRecorderOptions, private readonly logger: Logger) {
    this.client = new BusClientProxy(bus);
    this.topic = options.topic;
    this.clock = options.clock ?? (() => new Date());
    this.spool = new CallSpool(options.spool, options.topic, logger);
  }

  /** Hears every record as it is made (the metrics); a listener must not throw. */
  onRecord(listener: (event: CallEvent) => void): void {
    this.listeners.push(listener);
  }

  /** False while the spool is full (the bus has been away long): new calls are refused until it drains. */
  get accepting(): boolean {
    return !this.spool.full;
  }

  /** Opens the spool and sends what a previous edge left in it (a crash, or a shutdown with the bus away). */
  start(): void {
    this.openSpool();
    if (this.buffer.length > 0) this.schedule(0);
  }

  record(event: CallEvent, sessionId: string | undefined): void {
    for (const listener of this.listeners) listener(event);
    this.openSpool();
    // Sent later in a batch: the call's trace is taken now, so audit's record joins it.
    const at = this.clock();
    const value = callEnvelopeText(event, timeOrderedEventId(at.getTime()), sessionId, at);
    const message: OutgoingMessage = { key: event.data.principal, value, headers: injectTraceHeaders({ 'estate-type': event.type }) };
    try {
      this.buffer.push({ message, line: this.spool.append(spoolLine(message)) });
    } catch (error) {
      // The disk refused the write (full, gone): the record still goes to the bus, but a crash before it does loses it.
      this.logger.error({ err: error }, 'could not write a call record to the spool');
      this.buffer.push({ message, line: { segment: -1, end: 0, bytes: 0 } });
    }
    this.schedule(FLUSH_MS);
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

  /** Sends what the bus takes within a few seconds; what it does not stays in the spool for the next start. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    let timeout: NodeJS.Timeout | undefined;
    await Promise.race([this.flush(), new Promise((resolve) => (timeout = setTimeout(resolve, CLOSE_WAIT_MS)))]);
    clearTimeout(timeout);
    if (this.buffer.length > 0) this.logger.warn({ records: this.buffer.length }, 'the bus did not take every call record before shutdown; the spool keeps them for the next start');
    this.spool.close();
  }

  private openSpool(): void {
    if (this.spool.opened || this.closed) return;
    for (const { text, line } of this.spool.open()) {
      try {
        this.buffer.push({ message: messageOfLine(text), line });
      } catch {
        this.logger.error({ bytes: line.bytes }, 'a spooled call record cannot be read (not JSON, or no key) and is dropped');
        this.spool.acknowledge(line, line.bytes);
      }
    }
  }

  private schedule(ms: number): void {
    if (!this.closed) this.timer ??= setTimeout(() => void this.flush(), ms);
  }

  /**
   * Sends in batches the topic takes (a burst of calls could otherwise add up past its limit and be
   * refused on every retry); what fails for a passing reason goes back to the buffer, in order.
   */
  private async send(pending: Pending[]): Promise<void> {
    const batches = batchBySize(pending, (p) => messageBytes(p.message), BATCH, BATCH_BYTES);
    for (let i = 0; i < batches.length; i += 1) {
      try {
        await this.publishOrDrop(batches[i].map((p) => p.message));
      } catch (error) {
        const rest = batches.slice(i).flat();
        const delay = RETRY_MS[Math.min(this.failures, RETRY_MS.length - 1)];
        this.failures += 1;
        this.logger.warn({ err: error, count: rest.length, unsentBytes: this.spool.unsentBytes, retryMs: delay }, 'could not publish call records; they wait in the spool');
        this.buffer = rest.concat(this.buffer);
        this.schedule(delay);
        return;
      }
      this.failures = 0;
      this.acknowledge(batches[i]);
    }
  }

  private acknowledge(batch: Pending[]): void {
    const spooled = batch.filter((p) => p.line.segment >= 0);
    if (spooled.length === 0) return;
    this.spool.acknowledge(spooled[spooled.length - 1].line, spooled.reduce((sum, p) => sum + p.line.bytes, 0));
  }

  /** A record the topic refuses for its size is refused on every retry: dropped with one error line instead of blocking the rest. */
  private async publishOrDrop(batch: OutgoingMessage[]): Promise<void> {
    await publishOrSetAside(this.client.publisher, this.topic, batch, (m) => m, async (record, error) => {
      this.logger.error({ topic: this.topic, bytes: messageBytes(record), type: record.headers?.['estate-type'] }, `a call record was refused by ${this.topic} and dropped: ${error.message}`);
    });
  }
}
