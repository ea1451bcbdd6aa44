import { In, type EntityManager } from 'typeorm';
import { escapeUnstorable } from '@estate/contracts';
import { AuditDeadLetterEntity } from './audit-dead-letter.entity';
import { ConsumedEntity } from './consumed.entity';

/** A query runner in a transaction, or the data source for a plain read. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- rows are typed where they are read
type Runner = { query(sql: string, params?: unknown[]): Promise<any> };

/** Where a message sat in its log. */
export interface SourcePosition {
  topic: string;
  partition: number;
  offset: string;
}

/** One partition as the ledger knows it. */
export interface LedgerRow {
  topic: string;
  partition: number;
  firstOffset: string;
  nextOffset: string;
  handled: number;
}

/**
 * Counts a message as handled (recorded, already recorded, or dead-lettered) in the transaction
 * that handled it (a batch counts its offsets in its closing statement, batch.close.ts). A redelivery below the next expected offset is not counted again, so
 * `nextOffset - firstOffset - handled` is the number of messages passed over without a trace.
 */
export async function markHandled(runner: Runner, source: SourcePosition): Promise<void> {
  await runner.query(
    `INSERT INTO audit.consumed AS c (topic, partition, first_offset, next_offset, handled)
     VALUES ($1, $2, $3::bigint, $3::bigint + 1, 1)
     ON CONFLICT (topic, partition) DO UPDATE SET
       handled = c.handled + CASE WHEN $3::bigint >= c.next_offset OR $3::bigint < c.first_offset THEN 1 ELSE 0 END,
       next_offset = GREATEST(c.next_offset, $3::bigint + 1),
       first_offset = LEAST(c.first_offset, $3::bigint)`,
    [source.topic, source.partition, source.offset],
  );
}

export async function readLedger(manager: EntityManager, topics: string[]): Promise<LedgerRow[]> {
  if (topics.length === 0) return [];
  const rows = await manager.find(ConsumedEntity, { where: { topic: In(topics) }, order: { topic: 'ASC', partition: 'ASC' } });
  return rows.map((r) => ({ topic: r.topic, partition: r.partition, firstOffset: r.firstOffset, nextOffset: r.nextOffset, handled: Number(r.handled) }));
}

/** A message that could not be recorded, kept as received with its reason. */
export interface DeadLetterRow extends SourcePosition {
  key: string | null;
  value: string | null;
  reason: string;
}

/** Stores the dead letter (once per position) and counts it as handled, in one transaction. */
export async function storeDeadLetter(runner: Runner, letter: DeadLetterRow): Promise<void> {
  await insertDeadLetter(runner, letter);
  await markHandled(runner, letter);
}

/** The dead-letter row alone, for a batch that counts its offsets as handled together. */
export async function insertDeadLetter(runner: Runner, letter: DeadLetterRow): Promise<void> {
  await runner.query(
    `INSERT INTO audit.dead_letters (topic, partition, "offset", key, value, reason) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT ON CONSTRAINT dead_letters_position_unique DO NOTHING`,
    [letter.topic, letter.partition, letter.offset, bytes(letter.key), bytes(letter.value), escapeUnstorable(letter.reason)],
  );
}

const bytes = (text: string | null): Buffer | null => (text === null ? null : Buffer.from(text, 'utf8'));

export interface DeadLetterView extends SourcePosition {
  key: string | null;
  value: string | null;
  reason: string;
  failedAt: string;
}

export async function listDeadLetters(manager: EntityManager, limit: number): Promise<DeadLetterView[]> {
  const rows = await manager.find(AuditDeadLetterEntity, { order: { id: 'DESC' }, take: limit });
  return rows.map((r) => ({
    topic: r.topic,
    partition: r.partition,
    offset: String(r.offset),
    key: r.key?.toString('utf8') ?? null,
    value: r.value?.toString('utf8') ?? null,
    reason: r.reason,
    failedAt: r.failedAt.toISOString(),
  }));
}

export async function countDeadLetters(manager: EntityManager): Promise<number> {
  return manager.count(AuditDeadLetterEntity);
}
