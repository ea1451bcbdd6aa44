import { SerialQueue, type BusMessage, type EventBus, type Logger, type Subscription } from '@estate/platform';
import { parseEnvelope, toAuditEntry, type AuditSource } from './domain/audit-entry.mapper';
import type { AuditRepository } from './store/audit.repository';

export interface AuditTopics {
  registryEvents: string;
  calls: string;
}

/**
 * Records every envelope from the registry log and the call log into the trail. Offsets are
 * committed to the broker after the handler returns (at-least-once); the event id dedupes.
 *
 * Each topic has its own consumer group (`${groupId}.registryEvents`, `${groupId}.calls`): two
 * kafkajs consumers in one group with different subscriptions get partitions assigned across
 * both topics, and each drops the topics it did not subscribe to, so some partitions would
 * never be read.
 */
export class AuditConsumer {
  private readonly mutex = new SerialQueue();
  private readonly subscriptions: Subscription[] = [];

  constructor(
    private readonly repo: AuditRepository,
    private readonly bus: EventBus,
    private readonly topics: AuditTopics,
    private readonly groupId: string,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    const sources: Array<[AuditSource, keyof AuditTopics]> = [['registry', 'registryEvents'], ['calls', 'calls']];
    for (const [source, key] of sources) {
      this.subscriptions.push(await this.bus.subscribe({
        topic: this.topics[key],
        groupId: `${this.groupId}.${key}`,
        fromBeginning: true,
        handle: (message) => this.mutex.run(() => this.record(source, message)),
      }));
    }
  }

  async stop(): Promise<void> {
    await Promise.all(this.subscriptions.splice(0).map((s) => s.stop()));
  }

  private async record(source: AuditSource, message: BusMessage): Promise<void> {
    const parsed = parseEnvelope(message.value);
    if (!parsed.ok) {
      // Retrying cannot fix a malformed message; skipping it must leave a trace in the logs.
      this.logger.error(
        { topic: message.topic, partition: message.partition, offset: message.offset, reason: parsed.reason },
        'skipping a message that is not an event envelope',
      );
      return;
    }
    const entry = toAuditEntry(source, message.topic, parsed.envelope);
    const seq = await this.repo.append(entry, { notify: source === 'registry' });
    if (seq === undefined) this.logger.debug({ eventId: entry.eventId }, 'duplicate event ignored');
  }
}
