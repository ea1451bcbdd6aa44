import type { BusMessage, EventBus } from '../event-bus.port';
import type { Logger } from '../logger';

/** What goes to the dead-letter topic: where the message was, what it held, and why it was given up. */
export interface DeadLetterRecord {
  service: string;
  consumer: string;
  topic: string;
  partition: number;
  offset: string;
  key: string | null;
  value: string | null;
  reason: string;
  failedAt: string;
}

/**
 * The dead-letter table each consuming service keeps in its own schema: the message's bytes as
 * received (a key or value may hold what text cannot) and why it was given up, once per position.
 */
export function deadLetterTableSql(schema: string): string {
  return `
    CREATE TABLE ${schema}.dead_letters (
      id bigserial PRIMARY KEY,
      topic text NOT NULL,
      partition integer NOT NULL,
      "offset" bigint NOT NULL,
      key bytea,
      value bytea,
      reason text NOT NULL,
      failed_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT dead_letters_position_unique UNIQUE (topic, partition, "offset")
    )`;
}

/** Longest reason kept; a reason quoting a hostile value must not grow without bound. */
const MAX_REASON = 1000;

/**
 * The shared half of dead-lettering: one error line, a counter, and the record on the dead-letter
 * topic. Each service stores its own row (in its schema, with its position) before calling `send`.
 * A failed publish throws, so the message is retried like any outage; the row is idempotent.
 */
export class DeadLetterOffice {
  private sent = 0;

  constructor(
    private readonly bus: EventBus,
    private readonly topic: string,
    private readonly service: string,
    private readonly logger: Logger,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** Creates the dead-letter topic when missing; call once before consuming. */
  async prepare(): Promise<void> {
    // Kept forever, like the registry log: a dead letter is evidence, not traffic.
    await this.bus.ensureTopics([{ name: this.topic, retentionMs: -1, retentionBytes: -1 }]);
  }

  /** How many messages this process dead-lettered: the metric. */
  get count(): number {
    return this.sent;
  }

  record(consumer: string, message: BusMessage, reason: string): DeadLetterRecord {
    return {
      service: this.service,
      consumer,
      topic: message.topic,
      partition: message.partition,
      offset: message.offset,
      key: message.key,
      value: message.value,
      reason: reason.length > MAX_REASON ? `${reason.slice(0, MAX_REASON)}…` : reason,
      failedAt: this.clock().toISOString(),
    };
  }

  async send(record: DeadLetterRecord): Promise<void> {
    // JSON.stringify escapes U+0000 and lone surrogates, so any value travels and stores as text.
    await this.bus.publish(this.topic, [{ key: this.service, value: JSON.stringify(record), headers: { 'estate-dead-letter': record.consumer } }]);
    this.sent += 1;
    this.logger.error(
      { consumer: record.consumer, topic: record.topic, partition: record.partition, offset: record.offset, reason: record.reason, deadLettered: this.sent },
      'dead-lettered a message that cannot be applied; moving on',
    );
  }
}
