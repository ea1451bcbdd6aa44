import { onlyForAuditReaders } from '../deprecation/deprecation-callers';
import { Client } from 'pg';
import { feedFilterAdmits, type CloudEventOptions, type FeedFilter } from '@estate/events';
import type { Logger } from '@estate/platform';
import type { AuditEntry } from '../domain/audit-entry.mapper';
import { SSE_HEARTBEAT } from '../domain/audit-entry.view';
import { agentFeedEvent, type AgentFeedEvent } from '../domain/feed.agent-view';
import { feedEvent, toFeedFrame } from '../domain/feed.frame';
import { feedViewerMaySee, type FeedViewer } from '../domain/feed.visibility';
import { AUDIT_APPENDED_CHANNEL, type AuditRepository } from '../store/audit.repository';
import type { PublishedSpecs } from '../store/published-spec.repository';
import type { FeedIds } from './feed.ids';
import type { FeedPositions } from './feed.start';

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
  /** Read per event: the address it names is known once audit listens. */
  cloudEvents: () => CloudEventOptions;
}

/** What one subscriber asked for and may see. */
export interface FeedSubscription {
  /** The feed position to start after (Last-Event-ID, `since` as a position or a time, or the newest: feed.start.ts). */
  after: number;
  filter: FeedFilter;
  viewer: FeedViewer;
  /** The SSE ids this subscriber is sent: positions, or cursors sealing them (feed.ids.ts). */
  ids: FeedIds;
}

/** What a stream needs besides its subscriber: where to read, how to judge visibility, how to frame. */
interface StreamContext {
  repo: AuditRepository;
  specs: PublishedSpecs;
  options: FeedOptions;
  logger: Logger;
}

/**
 * One subscriber: every registry entry after `lastSent`, in seq order, exactly once, of those its
 * filter admits and its viewer may see. Skipped entries advance `lastSent` too, so a reconnect
 * with the last id it was sent reads them again and skips them again: nothing missed, nothing twice.
 */
class ToolChangeStream {
  private running = false;
  private again = false;
  private closed = false;
  private readonly timer: NodeJS.Timeout;

  private lastSent: number;

  constructor(
    private readonly sink: StreamSink,
    private readonly context: StreamContext,
    private readonly subscription: FeedSubscription,
  ) {
    this.lastSent = subscription.after;
    // The heartbeat also pumps: a notification lost while the listener reconnects costs latency only.
    this.timer = setInterval(() => {
      this.sink.write(SSE_HEARTBEAT);
      this.pump();
    }, context.options.heartbeatMs);
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
      .catch((error: unknown) => this.context.logger.warn({ err: error }, 'event stream read failed; retrying on the next signal'))
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
    const { repo, options } = this.context;
    for (;;) {
      const entries = await repo.topicEntriesAfter(options.registryTopic, this.lastSent, PAGE);
      for (const entry of entries) {
        if (this.closed) return;
        const frame = await this.frameFor(entry);
        if (this.closed) return;
        if (frame !== undefined) this.sink.write(frame);
        this.lastSent = entry.seq;
      }
      if (entries.length < PAGE) return;
    }
  }

  /** The frame for an entry, or undefined when this subscriber does not get it. */
  private async frameFor(entry: AuditEntry): Promise<string | undefined> {
    const { filter, viewer, ids } = this.subscription;
    const event = feedEvent(entry, this.context.options.cloudEvents());
    if (!feedFilterAdmits(filter, event)) return undefined;
    // Who called a version names other principals: only audit readers see that follow-up.
    if (viewer.kind !== 'all' && onlyForAuditReaders(entry)) return undefined;
    if (viewer.kind !== 'all' && !feedViewerMaySee(viewer, await this.context.specs.factsFor(entry))) return undefined;
    if (viewer.kind === 'all' || viewer.governance) return toFeedFrame(ids.idOf(entry.seq), event);
    const shown = agentFeedEvent(event);
    return shown === undefined ? undefined : toFeedFrame(ids.idOf(entry.seq), await this.withoutHiddenReplacement(shown, entry.tool, viewer));
  }

  /** A deprecation names its replacement to an agent only when the agent may see that version too. */
  private async withoutHiddenReplacement(shown: AgentFeedEvent, tool: string | null, viewer: FeedViewer): Promise<AgentFeedEvent> {
    const data = shown.data as Record<string, unknown>;
    if (typeof data.replacement !== 'string' || tool === null) return shown;
    if (feedViewerMaySee(viewer, await this.context.specs.factsOfVersion(tool, data.replacement))) return shown;
    const { replacement: _hidden, ...rest } = data;
    return { ...shown, data: rest };
  }
}

/**
 * Streams tool-change events (registry entries) to SSE subscribers. Appends signal at commit
 * through LISTEN/NOTIFY, and every stream reads the table after its last sent seq: events
 * recorded by any audit instance reach every subscriber, and a replay and the live tail are the
 * same read. Seq order is commit order (appends are serialized), so reading by seq skips nothing.
 */
export class ToolChangeFeed implements FeedPositions {
  private readonly streams = new Set<ToolChangeStream>();
  private readonly appendedListeners: Array<() => void> = [];
  private listener?: Client;
  private stopped = false;

  private readonly context: StreamContext;

  constructor(
    private readonly repo: AuditRepository,
    specs: PublishedSpecs,
    private readonly options: FeedOptions,
    private readonly logger: Logger,
  ) {
    this.context = { repo, specs, options, logger };
  }

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
    for (const listener of this.appendedListeners) listener();
  }

  /** Calls `listener` whenever registry entries may have been appended (a NOTIFY, or the listener back after a loss). */
  onAppended(listener: () => void): void {
    this.appendedListeners.push(listener);
  }

  /** Opens a stream that first replays what followed `subscription.after` and then follows live. Returns the function that closes it. */
  open(sink: StreamSink, subscription: FeedSubscription): () => void {
    const stream = new ToolChangeStream(sink, this.context, subscription);
    this.streams.add(stream);
    stream.pump();
    return () => {
      this.streams.delete(stream);
      stream.close();
    };
  }

  /** The newest entry's seq: where a stream without Last-Event-ID or `since` starts. */
  newestSeq(): Promise<number> {
    return this.repo.lastSeq();
  }

  /** The first registry entry that happened after `time`: where a stream with that `since` starts (feed.start.ts). */
  firstSeqAfter(time: string): Promise<number | undefined> {
    return this.repo.firstSeqAfter(this.options.registryTopic, time);
  }

  /** Ends every open stream: an HTTP server does not close while responses are still open. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const stream of this.streams) stream.close();
    this.streams.clear();
    await this.listener?.end().catch(() => undefined);
  }
}
