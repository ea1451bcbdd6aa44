import type { TopicKey } from '@estate/events';
import {
  eventLogger, messageEventId, type BusBinding, type BusContext, type BusMessage, type DeadLetterOffice, type DeadLetterRecord, type Logger, type StoredPosition,
} from '@estate/platform';
import type { QueryRunner } from 'typeorm';
import { parseEnvelope, toAuditEntry, type AuditEntryContent, type AuditSource } from './domain/audit-entry.mapper';
import { AuditPositions } from './store/audit-positions.repository';
import type { AuditRepository } from './store/audit.repository';
import { insertDeadLetter, storeDeadLetter } from './store/consumption.ledger';
import { storableEntry } from './store/storable-entry';
import { appendSegments, segmentsOf } from './store/trail.appender';

export interface AuditTopics {
  registryEvents: string;
  calls: string;
}

/** The unique constraint that dedupes redelivered events: its conflict is "already recorded", not poison. */
const EVENT_ID_CONSTRAINT = 'entries_event_id_unique';
/**
 * Call records per transaction: large enough that the chain head's lock is taken rarely, small
 * enough to keep a transaction short. Above what one Kafka fetch holds (4 MB, ~7,000 call records),
 * so each fetch is one transaction: every transaction ends with a COPY and a commit that node
 * waits for idle, so fewer of them is faster.
 */
const MAX_BATCH = 10_000;

/**
 * Records every envelope from the registry log and the call log into the trail, a batch at a time
 * (audit-events.controller.ts receives them). Each batch is chained and appended in segments whose
 * parsing overlaps the previous segment's INSERT, inside the transaction the bus transport opened, with the ledger and the position; a redelivered
 * batch changes nothing (event ids). Positions carry the id of the event recorded last and are
 * checked on every group join by the transport: a log that was reset, truncated or recreated is
 * said so once and read again from its start.
 *
 * Each topic has its own consumer group (`${groupId}.registryEvents`, `${groupId}.calls`): two
 * kafkajs consumers in one group with different subscriptions get partitions assigned across
 * both topics, and each drops the topics it did not subscribe to, so some partitions would
 * never be read.
 */
export class AuditConsumer {
  constructor(
    private readonly repo: AuditRepository,
    private readonly topics: AuditTopics,
    private readonly groupId: string,
    private readonly logger: Logger,
    private readonly deadLetters: DeadLetterOffice,
  ) {}

  /** How the transport subscribes each pattern of the controller. */
  bindings(): Record<Extract<TopicKey, 'registryEvents' | 'calls'>, BusBinding> {
    const binding = (key: keyof AuditTopics, source: AuditSource): BusBinding => ({
      topic: this.topics[key],
      groupId: `${this.groupId}.${key}`,
      maxBatch: MAX_BATCH,
      spanName: `audit record ${source}`,
      transactional: {
        // Every event takes one link at most (its unique event id), so a batch applied twice in a hand-over changes nothing.
        readAhead: true,
        db: this.repo.db,
        positions: new AuditPositions(this.repo.db),
        deadLetters: {
          office: this.deadLetters,
          consumer: 'audit-recorder',
          dedupeConstraints: [EVENT_ID_CONSTRAINT],
          store: (runner, record) => storeDeadLetter(runner, record),
        },
        onLogLost: async ({ topic, partition, startAt, reason }) => {
          this.logger.warn(
            { topic, partition, startAt },
            `the log ${topic} was reset, truncated or recreated (${reason}); audit re-reads it from offset ${startAt}, events already in the trail are not recorded twice`,
          );
        },
      },
    });
    return { registryEvents: binding('registryEvents', 'registry'), calls: binding('calls', 'calls') };
  }

  /**
   * One batch of one partition: what is no envelope goes to the dead letters (its row here, its
   * record on the topic after commit), the rest joins the chain, and every offset counts as handled.
   */
  async record(source: AuditSource, messages: BusMessage[], context: BusContext): Promise<void> {
    const runner = context.requireTransaction();
    const letters: DeadLetterRecord[] = [];
    // Event ids only: the parsed entries are let go as soon as their segment is written.
    const parsedMessages: Array<{ message: BusMessage; eventId: string }> = [];
    // Parsed a segment at a time, when the appender asks: the next segment's parsing overlaps the current one's INSERT.
    // The appender may ask for a segment again (after meeting a recorded event): letters and ids are taken the first time.
    const segments = segmentsOf(messages).map((chunk) => {
      let first = true;
      return (): AuditEntryContent[] => {
        const entries: AuditEntryContent[] = [];
        for (const message of chunk) {
          const parsed = parseEnvelope(message.value);
          if (!parsed.ok) {
            if (first) letters.push(this.deadLetters.record('audit-recorder', message, parsed.reason));
            continue;
          }
          const entry = storableEntry(toAuditEntry(source, message.topic, parsed.envelope));
          if (first) parsedMessages.push({ message, eventId: entry.eventId });
          entries.push(entry);
        }
        first = false;
        return entries;
      };
    });
    const { topic, partition } = context.origin;
    // The position the transport would write after this handler, written here with the chain head and the ledger in one statement.
    const position = context.position as StoredPosition;
    const bookkeeping = { topic, partition, offsets: messages.map((m) => m.offset), position };
    const appended = await appendSegments(runner, segments, { notify: source === 'registry', bookkeeping });
    context.positionStored();
    this.logDuplicates(parsedMessages, new Set(appended));
    await this.storeLetters(runner, letters, context);
    this.logger.trace({ topic, partition, count: messages.length, last: messageEventId(messages[messages.length - 1]) }, 'batch recorded');
  }

  /** One debug line per event already in the trail (or repeated in the batch), with that event's ids. */
  private logDuplicates(parsed: Array<{ message: BusMessage; eventId: string }>, appended: Set<string>): void {
    for (const { message, eventId } of parsed) {
      if (appended.delete(eventId)) continue;
      eventLogger(this.logger, message).debug('duplicate event ignored');
    }
  }

  private async storeLetters(runner: QueryRunner, letters: DeadLetterRecord[], context: BusContext): Promise<void> {
    for (const letter of letters) {
      await insertDeadLetter(runner, letter);
      context.afterCommit(() => this.deadLetters.send(letter));
    }
  }
}
