import type { QueryRunner } from 'typeorm';
import {
  inTransaction, poisonReason, SerialQueue, type BusMessage, type DeadLetterOffice, type EventBus, type Logger, type Subscription,
} from '@estate/platform';
import { applyEnvelope, MemoryProjection, type ApplyOutcome, type ProjectionTarget } from './catalog.apply';
import type { CatalogRepository } from './store/catalog.repository';

/**
 * Keeps the catalog projection: each registry event is applied and its Kafka offset recorded in
 * one transaction, so a crash at any point either keeps both or neither. After commit the touched
 * tools' current state goes to the compacted catalog topic.
 */
export class CatalogProjector {
  private readonly mutex = new SerialQueue();
  private subscription?: Subscription;

  constructor(
    private readonly repo: CatalogRepository,
    private readonly bus: EventBus,
    private readonly topics: { events: string; catalog: string },
    private readonly groupId: string,
    private readonly logger: Logger,
    private readonly deadLetters: DeadLetterOffice,
  ) {}

  async start(): Promise<void> {
    await this.publishAll();
    this.subscription = await this.bus.subscribe({
      topic: this.topics.events,
      groupId: this.groupId,
      fromBeginning: true,
      ownOffsets: (partition) => this.repo.checkpoint(this.topics.events, partition),
      handle: (message) => this.mutex.run(() => this.handle(message)),
    });
  }

  async stop(): Promise<void> {
    await this.subscription?.stop();
  }

  private async handle(message: BusMessage): Promise<void> {
    const next = await this.repo.checkpoint(message.topic, message.partition);
    if (next !== undefined && BigInt(message.offset) < BigInt(next)) return;
    let outcome: ApplyOutcome;
    try {
      outcome = await this.inTransaction(async (runner) => {
        const applied = await applyEnvelope(this.dbTarget(runner), parseJson(message.value));
        // A skipped message still moves the checkpoint: it can never apply, so it is dead-lettered for good.
        if (applied.skipped !== undefined) await this.repo.storeDeadLetter(runner, this.deadLetters.record('discovery-projector', message, applied.skipped));
        await this.repo.setCheckpoint(runner, message.topic, message.partition, String(BigInt(message.offset) + 1n));
        return applied;
      });
    } catch (error) {
      // A value PostgreSQL refuses fails the same way every time; an outage is thrown and retried.
      const reason = poisonReason(error);
      if (reason === undefined) throw error;
      outcome = { touched: [], skipped: reason };
      await this.inTransaction(async (runner) => {
        await this.repo.storeDeadLetter(runner, this.deadLetters.record('discovery-projector', message, reason));
        await this.repo.setCheckpoint(runner, message.topic, message.partition, String(BigInt(message.offset) + 1n));
      });
    }
    if (outcome.skipped !== undefined) await this.deadLetters.send(this.deadLetters.record('discovery-projector', message, outcome.skipped));
    await this.publish(outcome.touched);
  }

  /** Rebuild from offset zero aside, up to where the live consumer stands, then swap in one transaction. */
  async rebuild(): Promise<{ tools: number; servers: number; events: number }> {
    return this.mutex.run(async () => {
      const upTo = await this.repo.checkpoints(this.topics.events);
      const memory = await this.foldTopic(upTo);
      await this.inTransaction((runner) =>
        this.repo.replaceAll(runner, [...memory.projection.servers.values()], [...memory.projection.tools.values()], memory.projection.streams),
      );
      await this.publishAll();
      return { tools: memory.projection.tools.size, servers: memory.projection.servers.size, events: memory.events };
    });
  }

  /** Reads the events topic from the start up to the given next-offsets into a fresh in-memory projection. */
  async foldTopic(upTo: Map<number, string>): Promise<{ projection: MemoryProjection; events: number }> {
    const projection = new MemoryProjection();
    let events = 0;
    const remaining = new Map([...upTo].filter(([, offset]) => BigInt(offset) > 0n));
    if (remaining.size === 0) return { projection, events };
    let done!: () => void;
    const finished = new Promise<void>((resolve) => (done = resolve));
    const subscription = await this.bus.subscribe({
      topic: this.topics.events,
      groupId: `${this.groupId}-rebuild-${Date.now()}-${Math.random().toString(36).slice(2)}`,
      fromBeginning: true,
      ownOffsets: async () => '0',
      handle: async (message) => {
        const end = remaining.get(message.partition);
        if (end === undefined || BigInt(message.offset) >= BigInt(end)) return;
        const outcome = await applyEnvelope(projection, parseJson(message.value));
        if (outcome.skipped !== undefined) this.logSkipped(message, outcome.skipped);
        events += 1;
        if (BigInt(message.offset) + 1n >= BigInt(end)) remaining.delete(message.partition);
        if (remaining.size === 0) done();
      },
    });
    await finished;
    await subscription.stop();
    return { projection, events };
  }

  private async publish(names: string[]): Promise<void> {
    if (names.length === 0) return;
    const entries = await this.repo.toolsNamed(names);
    await this.bus.publish(this.topics.catalog, entries.map((entry) => ({ key: entry.name, value: JSON.stringify(entry) })));
  }

  /** The compacted topic is idempotent: republishing every entry on start heals a publish lost in a crash. */
  private async publishAll(): Promise<void> {
    const tools = await this.repo.allTools();
    await this.bus.publish(this.topics.catalog, tools.map((entry) => ({ key: entry.name, value: JSON.stringify(entry) })));
  }

  private logSkipped(message: BusMessage, reason: string): void {
    this.logger.error({ topic: message.topic, partition: message.partition, offset: message.offset, reason }, 'skipping a registry message that cannot apply');
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
