import {
  eventLogger, judgePosition, messageEventId, poisonReason, SerialQueue, withMessageSpan, type BusMessage, type DeadLetterOffice, type EventBus, type Logger, type Subscription,
} from '@estate/platform';
import { parseEnvelope, toAuditEntry, type AuditSource } from './domain/audit-entry.mapper';
import { AuditPositions } from './store/audit-positions.repository';
import type { AuditRepository } from './store/audit.repository';
import { storableEntry } from './store/storable-entry';

export interface AuditTopics {
  registryEvents: string;
  calls: string;
}

/**
 * Records every envelope from the registry log and the call log into the trail. Positions are kept
 * in the audit schema with the id of the event recorded last, and checked on every group join: a
 * log that was reset, truncated or recreated is said so once and read again from its start; the
 * event id dedupes (at-least-once).
 *
 * Each topic has its own consumer group (`${groupId}.registryEvents`, `${groupId}.calls`): two
 * kafkajs consumers in one group with different subscriptions get partitions assigned across
 * both topics, and each drops the topics it did not subscribe to, so some partitions would
 * never be read.
 */
export class AuditConsumer {
  private readonly mutex = new SerialQueue();
  private readonly subscriptions = new Map<string, Subscription>();
  /** Per topic/partition: the offset whose message must be the event recorded last. */
  private readonly expected = new Map<string, { offset: string; id: string }>();
  private readonly restarting = new Set<string>();
  private positions?: AuditPositions;
  private stopped = false;

  constructor(
    private readonly repo: AuditRepository,
    private readonly bus: EventBus,
    private readonly topics: AuditTopics,
    private readonly groupId: string,
    private readonly logger: Logger,
    private readonly deadLetters: DeadLetterOffice,
  ) {}

  async start(): Promise<void> {
    this.positions = new AuditPositions(this.repo.db);
    const sources: Array<[AuditSource, keyof AuditTopics]> = [['registry', 'registryEvents'], ['calls', 'calls']];
    for (const [source, key] of sources) await this.subscribe(source, key);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    const subscriptions = [...this.subscriptions.values()];
    this.subscriptions.clear();
    await Promise.all(subscriptions.map((s) => s.stop()));
  }

  private async subscribe(source: AuditSource, key: keyof AuditTopics): Promise<void> {
    const topic = this.topics[key];
    this.subscriptions.set(topic, await this.bus.subscribe({
      topic,
      groupId: `${this.groupId}.${key}`,
      fromBeginning: true,
      ownOffsets: (partition) => this.mutex.run(() => this.startAt(topic, partition)),
      handle: (message) => this.mutex.run(() => withMessageSpan(`audit record ${source}`, message, () => this.receive(source, key, message))),
    }));
  }

  /** Asked on start and on every group join: where to resume, once the log is known to hold what was recorded. */
  private async startAt(topic: string, partition: number): Promise<string> {
    const positions = this.positions as AuditPositions;
    const log = (await this.bus.offsets(topic)).find((p) => p.partition === partition);
    const verdict = judgePosition(await positions.get(topic, partition), log);
    this.expected.delete(`${topic}/${partition}`);
    if (verdict.kind === 'verify') this.expected.set(`${topic}/${partition}`, { offset: verdict.startAt, id: verdict.expectId });
    if (verdict.kind === 'lost') await this.startOver(topic, partition, verdict.startAt, verdict.reason);
    return verdict.startAt;
  }

  private async receive(source: AuditSource, key: keyof AuditTopics, message: BusMessage): Promise<void> {
    const where = `${message.topic}/${message.partition}`;
    if (this.restarting.has(message.topic)) return;
    const expected = this.expected.get(where);
    this.expected.delete(where);
    if (expected !== undefined && expected.offset === message.offset) {
      const found = messageEventId(message);
      if (found === expected.id) return; // the same log: the event recorded last, still in its place
      await this.startOver(message.topic, message.partition, '0', `offset ${message.offset} holds event ${found ?? '(no id)'}, not ${expected.id}: the log was recreated`);
      this.resubscribe(source, key);
      return;
    }
    await this.record(source, message);
    await (this.positions as AuditPositions).set(message.topic, message.partition, { next: String(BigInt(message.offset) + 1n), lastEventId: messageEventId(message) });
  }

  private async startOver(topic: string, partition: number, startAt: string, reason: string): Promise<void> {
    this.logger.warn(
      { topic, partition, startAt },
      `the log ${topic} was reset, truncated or recreated (${reason}); audit re-reads it from offset ${startAt}, events already in the trail are not recorded twice`,
    );
    await (this.positions as AuditPositions).set(topic, partition, { next: startAt, lastEventId: null });
  }

  /** The consumer stands past offsets it must read again: a new subscription seeks to the reset position. */
  private resubscribe(source: AuditSource, key: keyof AuditTopics): void {
    const topic = this.topics[key];
    this.restarting.add(topic);
    setImmediate(() => {
      void (async () => {
        await this.subscriptions.get(topic)?.stop();
        this.restarting.delete(topic);
        if (!this.stopped) await this.subscribe(source, key);
      })().catch((error: unknown) => {
        this.logger.error({ err: error, topic }, 'could not resubscribe to a log; retrying');
        setTimeout(() => this.resubscribe(source, key), 1000);
      });
    });
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
      if (seq === undefined) eventLogger(this.logger, message).debug('duplicate event ignored');
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
