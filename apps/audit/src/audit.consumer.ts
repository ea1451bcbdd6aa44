import {
  poisonReason, SerialQueue, type BusMessage, type DeadLetterOffice, type EventBus, type Logger, type Subscription,
} from '@estate/platform';
import { parseEnvelope, toAuditEntry, type AuditSource } from './domain/audit-entry.mapper';
import type { AuditRepository } from './store/audit.repository';
import { storableEntry } from './store/storable-entry';

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
    private readonly deadLetters: DeadLetterOffice,
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

  /**
   * A message that can never be recorded (not an envelope, a value PostgreSQL refuses) goes to the
   * dead letters with its reason and the recorder moves on; an outage is thrown and retried.
   */
  private async record(source: AuditSource, message: BusMessage): Promise<void> {
    const position = { topic: message.topic, partition: message.partition, offset: message.offset };
    try {
      const parsed = parseEnvelope(message.value);
      if (!parsed.ok) return await this.deadLetter(message, parsed.reason);
      const entry = storableEntry(toAuditEntry(source, message.topic, parsed.envelope));
      const seq = await this.repo.append(entry, { notify: source === 'registry', source: position });
      if (seq === undefined) this.logger.debug({ eventId: entry.eventId }, 'duplicate event ignored');
    } catch (error) {
      const reason = poisonReason(error, [EVENT_ID_CONSTRAINT]);
      if (reason === undefined) throw error;
      await this.deadLetter(message, reason);
    }
  }

  private async deadLetter(message: BusMessage, reason: string): Promise<void> {
    const record = this.deadLetters.record('audit-recorder', message, reason);
    await this.repo.deadLetter({ ...record, offset: message.offset });
    await this.deadLetters.send(record);
  }
}

/** The unique constraint that dedupes redelivered events: its conflict is "already recorded", not poison. */
const EVENT_ID_CONSTRAINT = 'entries_event_id_unique';
