import type { DataSource, QueryRunner } from 'typeorm';
import type { EventEnvelope } from '@estate/events';
import { inTransaction } from '@estate/platform';
import type { AuditEntry, AuditEntryContent } from '../domain/audit-entry.mapper';
import type { AuditQuery } from '../domain/audit-query.parser';
import { ChainVerifier, entryHash, type ChainHead, type VerifyResult } from '../domain/hash-chain';
import {
  countDeadLetters, listDeadLetters, markHandled, readLedger, storeDeadLetter,
  type DeadLetterRow, type DeadLetterView, type LedgerRow, type SourcePosition,
} from './consumption.ledger';

/** Signalled at commit when a registry event joins the trail; wakes the event streams. */
export const AUDIT_APPENDED_CHANNEL = 'estate_audit_appended';

const ROW_COLUMNS = `seq, event_id, topic, type, stream, tool, version, principal, outcome, occurred_at, payload, prev_hash, hash`;
const VERIFY_BATCH = 1000;

interface EntryRow {
  seq: string;
  event_id: string;
  topic: string;
  type: string;
  stream: string;
  tool: string | null;
  version: string | null;
  principal: string;
  outcome: string | null;
  occurred_at: Date;
  /** JSON text: holds U+0000 and lone surrogates as escapes, which jsonb refuses. */
  payload: string;
  prev_hash: string;
  hash: string;
}

export interface CallerRow {
  principal: string;
  version: string | null;
  calls: number;
  refused: number;
  lastCallAt: string;
}

function toStored(row: EntryRow): AuditEntry {
  return {
    seq: Number(row.seq),
    eventId: row.event_id,
    topic: row.topic,
    type: row.type,
    stream: row.stream,
    tool: row.tool,
    version: row.version,
    principal: row.principal,
    outcome: row.outcome,
    occurredAt: row.occurred_at.toISOString(),
    payload: JSON.parse(row.payload) as EventEnvelope,
    prevHash: row.prev_hash,
    hash: row.hash,
  };
}

/** The audit schema: the hash-chained, append-only trail and its one-row chain head. */
export class AuditRepository {
  constructor(readonly db: DataSource) {}

  /**
   * Appends one entry to the chain, or nothing when its event id is already recorded. The head
   * row lock serializes appends across every audit instance, so seq order is also commit order
   * (readers paging by seq never skip a late commit) and the chain cannot fork.
   */
  async append(content: AuditEntryContent, options: { notify: boolean; source?: SourcePosition }): Promise<number | undefined> {
    return this.inTransaction(async (runner) => {
      if (options.source) await markHandled(runner, options.source);
      const [head]: Array<{ hash: string }> = await runner.query(`SELECT hash FROM audit.chain_head WHERE id = 1 FOR UPDATE`);
      const hash = entryHash(head.hash, content);
      const inserted: Array<{ seq: string }> = await runner.query(
        `INSERT INTO audit.entries (event_id, topic, type, stream, tool, version, principal, outcome, occurred_at, payload, prev_hash, hash)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
         ON CONFLICT (event_id) DO NOTHING RETURNING seq`,
        [content.eventId, content.topic, content.type, content.stream, content.tool, content.version, content.principal,
          content.outcome, content.occurredAt, JSON.stringify(content.payload), head.hash, hash],
      );
      if (inserted.length === 0) return undefined;
      await runner.query(`UPDATE audit.chain_head SET last_seq = $1, hash = $2 WHERE id = 1`, [inserted[0].seq, hash]);
      if (options.notify) await runner.query(`SELECT pg_notify($1, $2)`, [AUDIT_APPENDED_CHANNEL, inserted[0].seq]);
      return Number(inserted[0].seq);
    });
  }

  /** Keeps a message that cannot be recorded, with its reason; it counts as handled. */
  async deadLetter(letter: DeadLetterRow): Promise<void> {
    await this.inTransaction((runner) => storeDeadLetter(runner, letter));
  }

  async deadLetters(limit: number): Promise<DeadLetterView[]> {
    return listDeadLetters(this.db, limit);
  }

  /** The ledger and the dead-letter count, read in one snapshot. */
  async consumption(topics: string[]): Promise<{ ledger: LedgerRow[]; deadLetters: number }> {
    return this.inTransaction(async (runner) => ({ ledger: await readLedger(runner, topics), deadLetters: await countDeadLetters(runner) }), 'REPEATABLE READ');
  }

  /** Newest first; one row more than asked tells whether another page exists. */
  async query(query: AuditQuery): Promise<{ entries: AuditEntry[]; more: boolean }> {
    const where: string[] = [];
    const params: unknown[] = [];
    const add = (sql: string, value: unknown): void => {
      params.push(value);
      // Every placeholder names the same parameter (the outcome filter uses it twice).
      where.push(sql.replaceAll('?', `$${params.length}`));
    };
    if (query.tool !== undefined) add('tool = ?', query.tool);
    if (query.version !== undefined) add('version = ?', query.version);
    if (query.principal !== undefined) add('principal = ?', query.principal);
    if (query.type !== undefined) add('type = ?', query.type);
    if (query.outcome !== undefined) add("(outcome = ? OR split_part(outcome, ':', 1) = ?)", query.outcome);
    if (query.from !== undefined) add('occurred_at >= ?', query.from.toISOString());
    if (query.to !== undefined) add('occurred_at < ?', query.to.toISOString());
    if (query.beforeSeq !== undefined) add('seq < ?', query.beforeSeq);
    params.push(query.limit + 1);
    const rows: EntryRow[] = await this.db.query(
      `SELECT ${ROW_COLUMNS} FROM audit.entries ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
       ORDER BY seq DESC LIMIT $${params.length}`,
      params,
    );
    return { entries: rows.slice(0, query.limit).map(toStored), more: rows.length > query.limit };
  }

  /** Entries of one topic after a seq, oldest first (the event stream's replay and live feed). */
  async topicEntriesAfter(topic: string, afterSeq: number, limit: number): Promise<AuditEntry[]> {
    const rows: EntryRow[] = await this.db.query(
      `SELECT ${ROW_COLUMNS} FROM audit.entries WHERE topic = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
      [topic, afterSeq, limit],
    );
    return rows.map(toStored);
  }

  async lastSeq(): Promise<number> {
    const [head]: Array<{ last_seq: string }> = await this.db.query(`SELECT last_seq FROM audit.chain_head WHERE id = 1`);
    return Number(head.last_seq);
  }

  /** Principals that called a tool (optionally one version), per version, most recent first. */
  async callers(tool: string, version: string | undefined): Promise<CallerRow[]> {
    const rows: Array<{ principal: string; version: string | null; calls: string; refused: string; last_call_at: Date }> =
      await this.db.query(
        `SELECT principal, version, count(*) AS calls,
                count(*) FILTER (WHERE outcome LIKE 'refused:%') AS refused, max(occurred_at) AS last_call_at
           FROM audit.entries
          WHERE tool = $1 AND ($2::text IS NULL OR version = $2) AND type IN ('ToolCallCompleted', 'ToolCallRefused')
          GROUP BY principal, version
          ORDER BY last_call_at DESC, principal`,
        [tool, version ?? null],
      );
    return rows.map((r) => ({
      principal: r.principal,
      version: r.version,
      calls: Number(r.calls),
      refused: Number(r.refused),
      lastCallAt: r.last_call_at.toISOString(),
    }));
  }

  /** Recomputes the whole chain from one snapshot, so appends running meanwhile cannot confuse it. */
  async verify(): Promise<VerifyResult> {
    return this.inTransaction(async (runner) => {
      const [head]: Array<{ last_seq: string; hash: string }> = await runner.query(`SELECT last_seq, hash FROM audit.chain_head WHERE id = 1`);
      const verifier = new ChainVerifier({ lastSeq: Number(head.last_seq), hash: head.hash } satisfies ChainHead);
      let after = 0;
      for (;;) {
        const rows: EntryRow[] = await runner.query(
          `SELECT ${ROW_COLUMNS} FROM audit.entries WHERE seq > $1 ORDER BY seq LIMIT $2`, [after, VERIFY_BATCH],
        );
        for (const row of rows) verifier.accept(toStored(row));
        if (rows.length < VERIFY_BATCH) return verifier.result();
        after = Number(rows[rows.length - 1].seq);
      }
    }, 'REPEATABLE READ');
  }

  private inTransaction<T>(work: (runner: QueryRunner) => Promise<T>, isolation?: 'REPEATABLE READ'): Promise<T> {
    return inTransaction(this.db, work, isolation);
  }

}
