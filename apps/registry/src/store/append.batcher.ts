import type { EventEnvelope } from '@estate/events';

/** One decision's events, stamped, waiting to be appended at the version its writer read. */
export interface PendingAppend {
  streamId: string;
  expectedVersion: number;
  stamped: EventEnvelope[];
  /** Each stamped event's data as JSON, serialized once when it was measured. */
  data: string[];
  traceparent: string | null;
  /** About how many bytes the events take on the wire. */
  bytes: number;
}

/** What one write of a batch reports: the streams whose appends landed; the others met a writer in between. */
export type WriteBatch = (batch: PendingAppend[]) => Promise<Set<string>>;

interface Waiting {
  append: PendingAppend;
  resolve(landed: boolean): void;
  reject(error: unknown): void;
}

/**
 * Group commit: appends that arrive while a write is under way go out together in the next one,
 * one statement and one transaction (one WAL flush) for all of them. Nothing waits on a timer: a
 * lone writer is written at once, so batching costs no latency; it only forms under load.
 * A batch holds at most one append per stream, so each append's version check is its own; a
 * second append to the same stream waits for the next batch (where it will usually conflict,
 * as it would have alone).
 */
export class AppendBatcher {
  private queue: Waiting[] = [];
  private writing = false;

  /** At most `maxBatch` appends and about `maxBytes` (at least one append) per statement: large contracts do not pile into one message. */
  constructor(private readonly write: WriteBatch, private readonly maxBatch = 256, private readonly maxBytes = 8 * 1024 * 1024) {}

  /** Resolves true once stored, false when the stream moved past the expected version. */
  append(append: PendingAppend): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      this.queue.push({ append, resolve, reject });
      if (!this.writing) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.writing = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.take();
        try {
          const landed = await this.write(batch.map((w) => w.append));
          for (const w of batch) w.resolve(landed.has(w.append.streamId));
        } catch (error) {
          for (const w of batch) w.reject(error);
        }
      }
    } finally {
      this.writing = false;
    }
  }

  /** The oldest waiting appends, one per stream, in arrival order. */
  private take(): Waiting[] {
    const streams = new Set<string>();
    const batch: Waiting[] = [];
    const rest: Waiting[] = [];
    let bytes = 0;
    for (const w of this.queue) {
      const fits = batch.length === 0 || (batch.length < this.maxBatch && bytes + w.append.bytes <= this.maxBytes);
      if (fits && !streams.has(w.append.streamId)) {
        streams.add(w.append.streamId);
        batch.push(w);
        bytes += w.append.bytes;
      } else rest.push(w);
    }
    this.queue = rest;
    return batch;
  }
}
