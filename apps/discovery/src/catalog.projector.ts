import type { QueryRunner } from 'typeorm';
import {
  BusClientProxy, CATALOG_ENTRY_MAX_BYTES, catalogTopicSpec, correlationHeaders, eventLogger, injectTraceHeaders, inTransaction, SerialQueue, withDeadline,
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
import { catalogTopicDifferences, readCatalogTopic, type CatalogTopicVerification } from './catalog-topic.check';
import { CatalogTopicWatch } from './catalog-topic.watch';
import type { CatalogRepository } from './store/catalog.repository';

/** How often the catalog topic is looked at (CatalogTopicWatch): one lost under a running discovery is whole again within seconds. */
const TOPIC_CHECK_MS = 2000;
/** How long verify waits for the catalog topic's offsets before calling it unreachable. */
const TOPIC_REACH_MS = 3000;
const TOPIC_RECHECK_MS = 500;

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
  /** Whether the catalog topic still holds what was sent (a topic deleted or truncated under a running discovery). */
  private readonly topicWatch: CatalogTopicWatch;
  /** Every catalog send goes through here: the watch counts what reached the topic. */
  private readonly catalogPublisher: Pick<EventBus, 'publish'>;
  private watchTimer?: NodeJS.Timeout;
  private watchFailing = false;

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
    this.topicWatch = new CatalogTopicWatch(bus, topics.catalog);
    this.catalogPublisher = this.topicWatch.counting(this.client.publisher);
    this.republisher = new CatalogRepublisher((names, headers, entries, changed) => this.publish(names, headers, entries, changed), republishGapMs, logger);
  }

  /** Sends the entries held back by the republish pacing; the bus must still be open. */
  stop(): Promise<void> {
    clearInterval(this.watchTimer);
    return this.republisher.stop();
  }

  /**
   * The compacted topic is idempotent: republishing every entry before consuming heals a publish
   * lost in a crash. From then on the topic is looked at every TOPIC_CHECK_MS: one deleted,
   * recreated or truncated under a running discovery gets the whole catalog again.
   */
  async start(): Promise<void> {
    await this.publishAll();
    this.watchTimer = setInterval(() => void this.keepTopic(), TOPIC_CHECK_MS);
    this.watchTimer.unref?.();
  }

  /** One look at the catalog topic; the whole catalog again when it lost what was sent. */
  private async keepTopic(): Promise<void> {
    try {
      const lost = await this.republisher.inTurn(() => this.topicWatch.lost());
      if (this.watchFailing) this.logger.info({ topic: this.topics.catalog }, 'the catalog topic can be checked again');
      this.watchFailing = false;
      if (lost === undefined) return;
      this.logger.warn(
        { topic: this.topics.catalog, lost },
        `the catalog topic ${this.topics.catalog} ${lost}: it was deleted, recreated or truncated; publishing the whole catalog to it again`,
      );
      await this.bus.ensureTopics([catalogTopicSpec(this.topics.catalog)]);
      await this.publishAll();
    } catch (error) {
      // The broker away: said once, looked at again on every tick.
      if (!this.watchFailing) this.logger.warn({ err: error, topic: this.topics.catalog }, 'could not check or refill the catalog topic; retrying');
      this.watchFailing = true;
    }
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
    await this.republisher.exclusive(async () => {
      await publishCatalogEntries(this.catalogPublisher, this.topics.catalog, tools, CATALOG_ENTRY_MAX_BYTES, this.logger);
      await this.topicWatch.settle();
    });
    const outcome = { tools: projection.tools.size, servers: projection.servers.size, events: rebuilt.events, source: rebuilt.source };
    this.logger.info(outcome, 'rebuild finished');
    return outcome;
  }

  /**
   * Compares the served catalog with a fresh fold of the event store (an empty list means equal),
   * and what a new edge would read from the catalog topic with the catalog.
   */
  async verify(): Promise<{ events: number; differences: string[]; catalogTopic: CatalogTopicVerification }> {
    // A verification is not a rebuild: its fold reports no progress.
    const folded = await new CatalogRebuilder(this.bus, this.topics.events, this.groupId, this.logger, { ...this.rebuildOptions, watch: undefined }).foldFromStore();
    return this.mutex.run(async () => ({
      events: folded.events,
      differences: diffCatalogs(
        await this.repo.catalog(),
        { servers: [...folded.projection.servers.values()], tools: [...folded.projection.tools.values()] },
      ),
      catalogTopic: await this.verifyTopic(),
    }));
  }

  /** The catalog topic read whole, as a new edge reads it, against the catalog (catalog-topic.check.ts). */
  private async verifyTopic(): Promise<CatalogTopicVerification> {
    const topic = this.topics.catalog;
    // With the broker away a read would wait out kafkajs's retries: said at once instead.
    if ((await withDeadline(this.bus.offsets(topic).then(() => true, () => false), TOPIC_REACH_MS)) !== true) {
      return { topic, reachable: false, equal: false, records: 0, differences: [] };
    }
    for (let attempt = 1; ; attempt += 1) {
      // Between sends and after the held-back ones: the topic is then as far as the committed catalog.
      const { tools, read } = await this.republisher.inTurn(async () => ({ tools: await this.repo.allTools(), read: await readCatalogTopic(this.bus, topic) }), true);
      const differences = read === undefined ? [`${topic} does not exist`] : catalogTopicDifferences(tools, read.latest);
      // A batch committed just before the catalog was read may still be on its way to the topic: a difference must hold a moment later.
      if (differences.length === 0 || attempt === 2) return { topic, reachable: true, equal: differences.length === 0, records: read?.records ?? 0, differences };
      await new Promise((resolve) => setTimeout(resolve, TOPIC_RECHECK_MS));
    }
  }

  private async publish(names: string[], headers: (name: string) => Record<string, string>, entries?: CatalogEntry[], changed?: ChangedVersions): Promise<void> {
    await publishCatalogEntries(this.catalogPublisher, this.topics.catalog, entries ?? (await this.repo.toolsNamed(names)), CATALOG_ENTRY_MAX_BYTES, this.logger, headers, changed);
  }

  private async publishAll(): Promise<void> {
    await this.republisher.exclusive(async () => {
      await publishCatalogEntries(this.catalogPublisher, this.topics.catalog, await this.repo.allTools(), CATALOG_ENTRY_MAX_BYTES, this.logger);
      await this.topicWatch.settle();
    });
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
