import type { QueryRunner } from 'typeorm';
import {
  BusClientProxy, CATALOG_ENTRY_MAX_BYTES, catalogTopicSpec, correlationHeaders, eventLogger, injectTraceHeaders, inTransaction, SerialQueue,
  type BusBinding, type BusContext, type BusMessage, type DeadLetterOffice, type EventBus, type Logger,
} from '@estate/platform';
import type { CatalogEntry } from '@estate/events';
import { BatchProjection } from './batch.projection';
import { ToolVersionsCache } from './tool-versions.cache';
import { applyEnvelope } from './catalog.apply';
import { diffCatalogs } from './catalog.diff';
import { publishCatalogEntries, type ChangedVersions } from './catalog.publisher';
import { CatalogRepublisher } from './catalog.republish';
import { CatalogRebuilder, type RebuildOutcome, type RebuildOptions } from './catalog.rebuilder';
import type { CatalogRepository } from './store/catalog.repository';

/**
 * Keeps the catalog projection. The bus transport hands it batches of registry events
 * (catalog-events.controller.ts) inside a transaction; each event is applied there and the
 * transport stores the batch's offset, with the id of its last event, in the same transaction, so
 * a crash at any point keeps both or neither, and stream positions make a replayed event change
 * nothing: every event's effect is applied exactly once. After commit the touched tools' changed
 * versions and heads go to the compacted catalog topic, once per tool per batch, a busy tool at
 * most once per ESTATE_CATALOG_REPUBLISH_MS (catalog.republish.ts).
 */
export class CatalogProjector {
  private readonly mutex = new SerialQueue();
  private readonly client: BusClientProxy;
  /** Each tool's versions as last committed: a batch reads (and parses) only the head row of a tool it touches. */
  private readonly versions = new ToolVersionsCache();
  private readonly republisher: CatalogRepublisher;

  constructor(
    private readonly repo: CatalogRepository,
    private readonly bus: EventBus,
    private readonly topics: { events: string; catalog: string },
    private readonly groupId: string,
    private readonly logger: Logger,
    private readonly deadLetters: DeadLetterOffice,
    private readonly rebuildOptions: RebuildOptions = {},
    republishGapMs = 0,
  ) {
    this.client = new BusClientProxy(bus);
    this.republisher = new CatalogRepublisher((names, headers, entries, changed) => this.publish(names, headers, entries, changed), republishGapMs, logger);
  }

  /** Sends the entries held back by the republish pacing; the bus must still be open. */
  stop(): Promise<void> {
    return this.republisher.stop();
  }

  /** The compacted topic is idempotent: republishing every entry before consuming heals a publish lost in a crash. */
  async start(): Promise<void> {
    await this.publishAll();
  }

  /** How the transport subscribes the registry log: transactional, with discovery's own checkpoints. */
  binding(): BusBinding {
    const repo = this.repo;
    return {
      topic: this.topics.events,
      groupId: this.groupId,
      spanName: 'discovery apply',
      transactional: {
        db: repo.db,
        positions: { get: (topic, partition) => repo.checkpoint(topic, partition), set: (runner, topic, partition, position) => repo.setCheckpoint(runner, topic, partition, position) },
        deadLetters: { office: this.deadLetters, consumer: 'discovery-projector', store: (runner, record) => repo.storeDeadLetter(runner, record) },
        onLogLost: (lost) => this.startOver(lost),
      },
    };
  }

  /**
   * Applies a batch in the transport's transaction. A message that can never apply is
   * dead-lettered in the same transaction and its position moves on with the batch. Each tool's
   * entry is republished once per batch, after commit, with the ids of the event that touched it last.
   */
  async applyBatch(messages: BusMessage[], context: BusContext): Promise<void> {
    const runner = context.requireTransaction();
    await this.mutex.run(async () => {
      const causes = new Map<string, BusMessage>();
      const target = new BatchProjection(this.repo, runner, this.versions);
      const values = messages.map((message) => parseJson(message.value));
      await target.prefetch(values);
      for (const [index, message] of messages.entries()) {
        const applied = await applyEnvelope(target, values[index]);
        for (const name of applied.touched) causes.set(name, message);
        // One line per event with its ids; a child logger per message only when someone reads debug (catch-up applies thousands).
        if (this.logger.isLevelEnabled('debug')) {
          eventLogger(this.logger, message).debug(
            { offset: message.offset, type: message.headers['estate-type'], tools: applied.touched, skipped: applied.skipped }, 'registry event applied',
          );
        }
        if (applied.skipped === undefined) continue;
        const record = this.deadLetters.record('discovery-projector', message, applied.skipped);
        await this.repo.storeDeadLetter(runner, record);
        context.afterCommit(() => this.deadLetters.send(record));
      }
      // The batch's checkpoint goes in the same statement as its rows: one round trip fewer per batch.
      const { position } = context;
      await target.flush(position && { ...context.origin, ...position });
      if (position) context.positionStored();
      context.afterCommit(async () => target.remember());
      // One send for the whole batch (one bus append, not one per event that touched a tool), each
      // entry with the trace and correlation id of the event that touched it last: the edges'
      // list_changed notification is that event's last step.
      const names = [...byCause(causes).values()].flat();
      if (names.length > 0) {
        const headers = new Map([...new Set(causes.values())].map((cause) => [cause, injectTraceHeaders(correlationHeaders(cause))]));
        const headersOf = (name: string) => headers.get(causes.get(name) as BusMessage) as Record<string, string>;
        // The entries the batch committed, from memory: reading them back cost a query before every send.
        const entries = target.written(names);
        // Only the versions the batch changed go out, with each tool's head.
        const changed = target.changedVersions();
        context.afterCommit(() => this.republisher.offer(names, headersOf, entries, changed));
      }
    });
  }

  /**
   * The log no longer holds what was applied: say so once; the transport reads the new log from
   * its start. Events applied before change nothing (stream positions); the catalog topic may be
   * new as well, so every entry is published again.
   */
  private async startOver(lost: { partition: number; startAt: string; reason: string; unread: boolean }): Promise<void> {
    this.logger.warn(
      { topic: this.topics.events, partition: lost.partition, startAt: lost.startAt },
      `the registry log was reset, truncated or recreated (${lost.reason}); discovery re-reads it from offset ${lost.startAt}, events already applied change nothing`,
    );
    this.versions.clear();
    await this.bus.ensureTopics([catalogTopicSpec(this.topics.catalog)]);
    await this.publishAll();
    // Reading the log again cannot bring back events deleted before they were read: the event store can.
    if (lost.unread) setImmediate(() => void this.rebuildAfterLoss());
  }

  private async rebuildAfterLoss(): Promise<void> {
    try {
      await this.rebuild();
    } catch (error) {
      this.logger.error({ err: error }, 'could not rebuild after events were deleted from the log unread; POST /v1/rebuild once the registry answers');
    }
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
    const tools = [...projection.tools.values()];
    await this.inTransaction((runner) => this.repo.replaceAll(runner, [...projection.servers.values()], tools, projection.streams));
    this.versions.clear();
    // The entries just swapped in, from memory: reading the whole catalog back cost as much as writing it.
    tools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    await this.republisher.exclusive(() => publishCatalogEntries(this.client.publisher, this.topics.catalog, tools, CATALOG_ENTRY_MAX_BYTES, this.logger));
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
        await this.repo.catalog(),
        { servers: [...folded.projection.servers.values()], tools: [...folded.projection.tools.values()] },
      ),
    }));
  }

  private async publish(names: string[], headers: (name: string) => Record<string, string>, entries?: CatalogEntry[], changed?: ChangedVersions): Promise<void> {
    await publishCatalogEntries(this.client.publisher, this.topics.catalog, entries ?? (await this.repo.toolsNamed(names)), CATALOG_ENTRY_MAX_BYTES, this.logger, headers, changed);
  }

  private async publishAll(): Promise<void> {
    await this.republisher.exclusive(async () => publishCatalogEntries(this.client.publisher, this.topics.catalog, await this.repo.allTools(), CATALOG_ENTRY_MAX_BYTES, this.logger));
  }

  private inTransaction<T>(work: (runner: QueryRunner) => Promise<T>): Promise<T> {
    return inTransaction(this.repo.db, work);
  }
}

/** Tools grouped by the event of the batch that touched them last, in the batch's order. */
function byCause(causes: Map<string, BusMessage>): Map<BusMessage, string[]> {
  const groups = new Map<BusMessage, string[]>();
  for (const [name, message] of causes) groups.set(message, [...(groups.get(message) ?? []), name]);
  return groups;
}

function parseJson(value: string | null): unknown {
  try {
    return JSON.parse(value ?? 'null');
  } catch {
    // Not JSON at all: applyEnvelope reports it as not an envelope, like any other malformed value.
    return value;
  }
}
