import type { QueryRunner } from 'typeorm';
import {
  CATALOG_ENTRY_MAX_BYTES, catalogTopicSpec, correlationHeaders, eventLogger, injectTraceHeaders, inTransaction, judgePosition, messageEventId, poisonReason, SerialQueue, withMessageSpan,
  type BusMessage, type DeadLetterOffice, type EventBus, type Logger, type Subscription,
} from '@estate/platform';
import { applyEnvelope, type ApplyOutcome, type ProjectionTarget } from './catalog.apply';
import { diffCatalogs } from './catalog.diff';
import { publishCatalogEntries } from './catalog.publisher';
import { CatalogRebuilder, type RebuildOutcome, type RebuildOptions } from './catalog.rebuilder';
import type { CatalogRepository } from './store/catalog.repository';

/**
 * Keeps the catalog projection: each registry event is applied and its Kafka offset recorded in
 * one transaction, so a crash at any point either keeps both or neither. After commit the touched
 * tools' current state goes to the compacted catalog topic. With the offset goes the id of the
 * event applied there: on every join the projector checks the log still holds it (startAt), and
 * reads a reset, truncated or recreated log again from its start.
 */
export class CatalogProjector {
  private readonly mutex = new SerialQueue();
  private subscription?: Subscription;
  /** Partitions whose first message after a join must be the event we applied last. */
  private readonly expected = new Map<number, { offset: string; id: string }>();
  private restarting = false;
  private stopped = false;

  constructor(
    private readonly repo: CatalogRepository,
    private readonly bus: EventBus,
    private readonly topics: { events: string; catalog: string },
    private readonly groupId: string,
    private readonly logger: Logger,
    private readonly deadLetters: DeadLetterOffice,
    private readonly rebuildOptions: RebuildOptions = {},
  ) {}

  async start(): Promise<void> {
    await this.publishAll();
    await this.subscribe();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.subscription?.stop();
  }

  private async subscribe(): Promise<void> {
    this.subscription = await this.bus.subscribe({
      topic: this.topics.events,
      groupId: this.groupId,
      fromBeginning: true,
      ownOffsets: (partition) => this.mutex.run(() => this.startAt(partition)),
      handle: (message) => this.mutex.run(() => withMessageSpan('discovery apply', message, () => this.handle(message))),
    });
  }

  /** Asked on start and on every group join: where to resume, once the log is known to hold what was applied. */
  private async startAt(partition: number): Promise<string> {
    const stored = await this.repo.checkpoint(this.topics.events, partition);
    const log = (await this.bus.offsets(this.topics.events)).find((p) => p.partition === partition);
    const verdict = judgePosition(stored, log);
    this.expected.delete(partition);
    if (verdict.kind === 'verify') this.expected.set(partition, { offset: verdict.startAt, id: verdict.expectId });
    if (verdict.kind === 'lost') await this.startOver(partition, verdict.startAt, verdict.reason);
    // Reading the log again cannot bring back events deleted before they were read: the event store can.
    if (verdict.kind === 'lost' && verdict.unread) setImmediate(() => void this.rebuildAfterLoss());
    return verdict.startAt;
  }

  private async rebuildAfterLoss(): Promise<void> {
    try {
      await this.rebuild();
    } catch (error) {
      this.logger.error({ err: error }, 'could not rebuild after events were deleted from the log unread; POST /v1/rebuild once the registry answers');
    }
  }

  private async handle(message: BusMessage): Promise<void> {
    if (this.restarting) return;
    const expected = this.expected.get(message.partition);
    if (expected !== undefined && expected.offset === message.offset) {
      this.expected.delete(message.partition);
      const found = messageEventId(message);
      if (found === expected.id) return; // the same log: the event we applied last, still in its place
      await this.startOver(message.partition, '0', `offset ${message.offset} holds event ${found ?? '(no id)'}, not ${expected.id}: the log was recreated`);
      this.resubscribe();
      return;
    }
    this.expected.delete(message.partition);
    const stored = await this.repo.checkpoint(message.topic, message.partition);
    if (stored !== undefined && BigInt(message.offset) < BigInt(stored.next)) {
      // Redelivery of the message applied last (its handler failed after the commit): publish again.
      if (BigInt(message.offset) + 1n === BigInt(stored.next) && messageEventId(message) === stored.lastEventId) return this.publishAll();
      // Never asked for: the bus went back by itself because our position fell off the log.
      await this.startOver(message.partition, message.offset, `the bus restarted at offset ${message.offset}, below the stored position ${stored.next}`);
    }
    const checkpoint = { next: String(BigInt(message.offset) + 1n), lastEventId: messageEventId(message) };
    let outcome: ApplyOutcome;
    try {
      outcome = await this.inTransaction(async (runner) => {
        const applied = await applyEnvelope(this.dbTarget(runner), parseJson(message.value));
        // A skipped message still moves the checkpoint: it can never apply, so it is dead-lettered for good.
        if (applied.skipped !== undefined) await this.repo.storeDeadLetter(runner, this.deadLetters.record('discovery-projector', message, applied.skipped));
        await this.repo.setCheckpoint(runner, message.topic, message.partition, checkpoint);
        return applied;
      });
    } catch (error) {
      // A value PostgreSQL refuses fails the same way every time; an outage is thrown and retried.
      const reason = poisonReason(error);
      if (reason === undefined) throw error;
      outcome = { touched: [], skipped: reason };
      await this.inTransaction(async (runner) => {
        await this.repo.storeDeadLetter(runner, this.deadLetters.record('discovery-projector', message, reason));
        await this.repo.setCheckpoint(runner, message.topic, message.partition, checkpoint);
      });
    }
    if (outcome.skipped !== undefined) await this.deadLetters.send(this.deadLetters.record('discovery-projector', message, outcome.skipped));
    eventLogger(this.logger, message).info({ offset: message.offset, type: message.headers['estate-type'], tools: outcome.touched, skipped: outcome.skipped }, 'registry event applied');
    await this.publish(outcome.touched, message);
  }

  /**
   * The log no longer holds what was applied: say so once, then read the new log from its start.
   * Events applied before change nothing (stream positions); the catalog topic may be new as well,
   * so every entry is published again.
   */
  private async startOver(partition: number, startAt: string, reason: string): Promise<void> {
    this.logger.warn(
      { topic: this.topics.events, partition, startAt },
      `the registry log was reset, truncated or recreated (${reason}); discovery re-reads it from offset ${startAt}, events already applied change nothing`,
    );
    await this.inTransaction((runner) => this.repo.setCheckpoint(runner, this.topics.events, partition, { next: startAt, lastEventId: null }));
    await this.bus.ensureTopics([catalogTopicSpec(this.topics.catalog)]);
    await this.publishAll();
  }

  /** Our consumer stands past offsets it must read again: a new subscription seeks to the reset checkpoint. */
  private resubscribe(): void {
    this.restarting = true;
    setImmediate(() => {
      void (async () => {
        await this.subscription?.stop();
        this.restarting = false;
        if (!this.stopped) await this.subscribe();
      })().catch((error: unknown) => {
        this.logger.error({ err: error }, 'could not resubscribe to the registry log; retrying');
        setTimeout(() => this.resubscribe(), 1000);
      });
    });
  }

  /** Rebuild aside (from the log when it is complete, else from the event store), then swap in one transaction. */
  async rebuild(): Promise<RebuildOutcome> {
    return this.mutex.run(async () => {
      const watch = this.rebuildOptions.watch;
      watch?.started();
      try {
        const outcome = await this.rebuildAside();
        watch?.finished('ok');
        return outcome;
      } catch (error) {
        watch?.finished('failed');
        throw error;
      }
    });
  }

  private async rebuildAside(): Promise<RebuildOutcome> {
    const rebuilt = await new CatalogRebuilder(this.bus, this.topics.events, this.groupId, this.logger, this.rebuildOptions).fold(await this.repo.appliedEvents());
    const { projection } = rebuilt;
    await this.inTransaction((runner) =>
      this.repo.replaceAll(runner, [...projection.servers.values()], [...projection.tools.values()], projection.streams),
    );
    await this.publishAll();
    const outcome = { tools: projection.tools.size, servers: projection.servers.size, events: rebuilt.events, source: rebuilt.source };
    this.logger.info(outcome, 'rebuild finished');
    return outcome;
  }

  /** Compares the served catalog with a fresh fold of the event store; an empty list means equal. */
  async verify(): Promise<{ events: number; differences: string[] }> {
    // A verification is not a rebuild: its fold reports no progress.
    const folded = await new CatalogRebuilder(this.bus, this.topics.events, this.groupId, this.logger, { ...this.rebuildOptions, watch: undefined }).foldFromStore();
    return this.mutex.run(async () => ({
      events: folded.events,
      differences: diffCatalogs(
        { servers: await this.repo.allServers(), tools: await this.repo.allTools() },
        { servers: [...folded.projection.servers.values()], tools: [...folded.projection.tools.values()] },
      ),
    }));
  }

  private async publish(names: string[], cause: BusMessage): Promise<void> {
    if (names.length === 0) return;
    // The event's trace and correlation id go on to the edges: their list_changed notification is its last step.
    await publishCatalogEntries(this.bus, this.topics.catalog, await this.repo.toolsNamed(names), CATALOG_ENTRY_MAX_BYTES, this.logger, injectTraceHeaders(correlationHeaders(cause)));
  }

  /** The compacted topic is idempotent: republishing every entry on start heals a publish lost in a crash. */
  private async publishAll(): Promise<void> {
    await publishCatalogEntries(this.bus, this.topics.catalog, await this.repo.allTools(), CATALOG_ENTRY_MAX_BYTES, this.logger);
  }

  private dbTarget(runner: QueryRunner): ProjectionTarget {
    const repo = this.repo;
    return {
      streamPosition: (s) => repo.streamPosition(runner, s),
      setStreamPosition: (s, p) => repo.setStreamPosition(runner, s, p),
      server: (n) => repo.server(runner, n),
      upsertServer: (s) => repo.upsertServer(runner, s),
      tool: (n) => repo.tool(runner, n),
      toolsOfServer: (s) => repo.toolsOfServer(runner, s),
      upsertTool: (e) => repo.upsertTool(runner, e),
    };
  }

  private inTransaction<T>(work: (runner: QueryRunner) => Promise<T>): Promise<T> {
    return inTransaction(this.repo.db, work);
  }

}

function parseJson(value: string | null): unknown {
  try {
    return JSON.parse(value ?? 'null');
  } catch {
    // Not JSON at all: applyEnvelope reports it as not an envelope, like any other malformed value.
    return value;
  }
}
