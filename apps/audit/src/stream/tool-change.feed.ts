import { Client } from 'pg';
import type { Logger } from '@estate/platform';
import { SSE_HEARTBEAT, toSseFrame } from '../domain/audit-entry.view';
import { AUDIT_APPENDED_CHANNEL, type AuditRepository } from '../store/audit.repository';

/** Where a stream writes its frames: the raw HTTP response. */
export interface StreamSink {
  write(chunk: string): unknown;
  end(): unknown;
}

const PAGE = 100;

export interface FeedOptions {
  registryTopic: string;
  databaseUrl: string;
  heartbeatMs: number;
}

/** One subscriber: sends every registry entry after `lastSent`, in seq order, exactly once. */
class ToolChangeStream {
  private running = false;
  private again = false;
  private closed = false;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly sink: StreamSink,
    private readonly repo: AuditRepository,
    private readonly topic: string,
    private lastSent: number,
    heartbeatMs: number,
    private readonly logger: Logger,
  ) {
    // The heartbeat also pumps: a notification lost while the listener reconnects costs latency only.
    this.timer = setInterval(() => {
      this.sink.write(SSE_HEARTBEAT);
      this.pump();
    }, heartbeatMs);
  }

  /** Reads and sends what is new now, or right after the read in progress. */
  pump(): void {
    if (this.closed) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    void this.drain()
      .catch((error: unknown) => this.logger.warn({ err: error }, 'event stream read failed; retrying on the next signal'))
      .finally(() => {
        this.running = false;
        if (this.again) {
          this.again = false;
          this.pump();
        }
      });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    this.sink.end();
  }

  private async drain(): Promise<void> {
    for (;;) {
      const entries = await this.repo.topicEntriesAfter(this.topic, this.lastSent, PAGE);
      for (const entry of entries) {
        if (this.closed) return;
        this.sink.write(toSseFrame(entry));
        this.lastSent = entry.seq;
      }
      if (entries.length < PAGE) return;
    }
  }
}

/**
 * Streams tool-change events (registry entries) to SSE subscribers. Appends signal at commit
 * through LISTEN/NOTIFY, and every stream reads the table after its last sent seq: events
 * recorded by any audit instance reach every subscriber, and a replay and the live tail are the
 * same read. Seq order is commit order (appends are serialized), so reading by seq skips nothing.
 */
export class ToolChangeFeed {
  private readonly streams = new Set<ToolChangeStream>();
  private listener?: Client;
  private stopped = false;

  constructor(
    private readonly repo: AuditRepository,
    private readonly options: FeedOptions,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    await this.listen();
  }

  private async listen(): Promise<void> {
    const listener = new Client({ connectionString: this.options.databaseUrl });
    listener.on('notification', () => this.pumpAll());
    listener.on('error', (error) => {
      this.logger.warn({ err: error }, 'event stream listener lost; heartbeats keep streams moving until it is back');
      this.relisten(listener);
    });
    listener.on('end', () => this.relisten(listener));
    try {
      await listener.connect();
      // Raw SQL: LISTEN holds a session of its own, which TypeORM's pooled connections cannot keep.
      await listener.query(`LISTEN ${AUDIT_APPENDED_CHANNEL}`);
    } catch (error) {
      await listener.end().catch(() => undefined);
      throw error;
    }
    // Stopped while this connection was being made: nobody would end it.
    if (this.stopped) await listener.end().catch(() => undefined);
    else this.listener = listener;
  }

  /** After a lost connection (a database restart), listen again every second until it works, then catch up. */
  private relisten(lost: Client): void {
    if (this.stopped || this.listener !== lost) return;
    this.listener = undefined;
    const retry = () => {
      if (this.stopped) return;
      this.listen().then(
        () => {
          this.logger.info('event stream listener back');
          this.pumpAll();
        },
        () => setTimeout(retry, 1000).unref(),
      );
    };
    setTimeout(retry, 1000).unref();
  }

  private pumpAll(): void {
    this.streams.forEach((stream) => stream.pump());
  }

  /**
   * Opens a stream that first replays what followed `lastEventId` and then follows live; without
   * one it starts at the newest entry. Returns the function that closes it.
   */
  async open(sink: StreamSink, lastEventId: number | undefined): Promise<() => void> {
    const from = lastEventId ?? (await this.repo.lastSeq());
    const stream = new ToolChangeStream(sink, this.repo, this.options.registryTopic, from, this.options.heartbeatMs, this.logger);
    this.streams.add(stream);
    stream.pump();
    return () => {
      this.streams.delete(stream);
      stream.close();
    };
  }

  /** The newest entry's seq: where a stream without Last-Event-ID starts. */
  newestSeq(): Promise<number> {
    return this.repo.lastSeq();
  }

  /** Ends every open stream: an HTTP server does not close while responses are still open. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const stream of this.streams) stream.close();
    this.streams.clear();
    await this.listener?.end().catch(() => undefined);
  }
}
