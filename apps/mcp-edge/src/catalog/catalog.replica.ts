import type { CatalogEntry } from '@estate/events';
import type { BusMessage, EventBus, Logger, Subscription } from '@estate/platform';

export interface CatalogChange {
  name: string;
  before: CatalogEntry | undefined;
  after: CatalogEntry | undefined;
}

/**
 * The edge's in-memory copy of the compacted catalog topic. Every edge instance reads the whole
 * topic with a group of its own, so it keeps answering from the last catalog it saw when
 * discovery or Kafka is down.
 */
export class CatalogReplica {
  private readonly entries = new Map<string, CatalogEntry>();
  private readonly listeners: Array<(changes: CatalogChange[]) => void> = [];
  private subscription?: Subscription;

  constructor(private readonly logger: Logger) {}

  get(name: string): CatalogEntry | undefined {
    return this.entries.get(name);
  }

  all(): IterableIterator<CatalogEntry> {
    return this.entries.values();
  }

  get size(): number {
    return this.entries.size;
  }

  onChange(listener: (changes: CatalogChange[]) => void): void {
    this.listeners.push(listener);
  }

  async start(bus: EventBus, topic: string, groupId: string): Promise<void> {
    this.subscription = await bus.subscribe({ topic, groupId, fromBeginning: true, handle: async (m) => this.receive(m) });
  }

  async stop(): Promise<void> {
    await this.subscription?.stop();
  }

  /** Apply one catalog record; an entry older than the one held (a replay) is ignored. */
  apply(name: string, next: CatalogEntry | undefined): void {
    const before = this.entries.get(name);
    if (next && before && next.position < before.position) return;
    if (next) this.entries.set(name, next);
    else this.entries.delete(name);
    const change: CatalogChange = { name, before, after: next };
    for (const listener of this.listeners) listener([change]);
  }

  private receive(message: BusMessage): void {
    if (!message.key) return;
    try {
      this.apply(message.key, message.value === null ? undefined : (JSON.parse(message.value) as CatalogEntry));
    } catch (error) {
      this.logger.error({ err: error, offset: message.offset }, 'skipping an unreadable catalog record');
    }
  }
}
