import { IsNull, MoreThan, type DataSource, type QueryRunner } from 'typeorm';
import type { EventEnvelope } from '@estate/events';
import { inTransaction } from '@estate/platform';
import type { AuditEntry, AuditEntryContent } from '../domain/audit-entry.mapper';
import { appendChained } from './trail.appender';
import type { AuditQuery } from '../domain/audit-query.parser';
import { ChainVerifier, type ChainHead, type StoredLink, type VerifyResult } from '../domain/hash-chain';
import { AuditEntryEntity, TYPE_INDEX_LEAVES_OUT, TYPE_INDEX_PREDICATE } from './audit-entry.entity';
import { ChainHeadEntity } from './chain-head.entity';
import { countDeadLetters, listDeadLetters, readLedger, type DeadLetterView, type LedgerRow } from './consumption.ledger';
import { searchKey } from './storable-entry';

export { AUDIT_APPENDED_CHANNEL } from './trail.appender';

/** Rows per verify page: large enough that a round trip is nothing beside hashing the page. */
const VERIFY_BATCH = 5000;
/** The call events that count as calling a version (a refused call resolved to it too). */
export const CALL_TYPES = ['ToolCallCompleted', 'ToolCallRefused'];

/**
 * A call record's tenant, read from its envelope as stored (the trail has no column for it): the
 * same subject in two tenants is two callers, as it is two principals for budgets and sessions.
 */
export const CALLER_TENANT = `(e.payload::json #>> '{data,tenant}')`;

export interface CallerRow {
  principal: string;
  /** Absent when the caller's token named no tenant. */
  tenant?: string;
  version: string | null;
  calls: number;
  refused: number;
  lastCallAt: string;
}

function toStored(row: AuditEntryEntity): AuditEntry {
  return {
    seq: Number(row.seq),
    eventId: row.eventId,
    topic: row.topic,
    type: row.type,
    stream: row.stream,
    tool: row.tool,
    version: row.version,
    principal: row.principal,
    outcome: row.outcome,
    occurredAt: row.occurredAt.toISOString(),
    payload: JSON.parse(row.payload) as EventEnvelope,
    prevHash: row.prevHash,
    hash: row.hash,
  };
}

/** The audit schema: the hash-chained, append-only trail and its one-row chain head. */
export class AuditRepository {
  constructor(readonly db: DataSource) {}

  /**
   * One entry the audit service states itself (a webhook subscription or delivery), appended to the
   * chain in its own transaction; recorded events go through the consumer's batches instead.
   */
  async appendOne(content: AuditEntryContent, options: { notify: boolean }): Promise<void> {
    await this.inTransaction((runner) => appendChained(runner, [content], options));
  }

  async deadLetters(limit: number): Promise<DeadLetterView[]> {
    return listDeadLetters(this.db.manager, limit);
  }

  /** The ledger and the dead-letter count, read in one snapshot. */
  async consumption(topics: string[]): Promise<{ ledger: LedgerRow[]; deadLetters: number }> {
    return this.inTransaction(
      async (runner) => ({ ledger: await readLedger(runner.manager, topics), deadLetters: await countDeadLetters(runner.manager) }), 'REPEATABLE READ',
    );
  }

  /** Newest first; one row more than asked tells whether another page exists. */
  async query(query: AuditQuery): Promise<{ entries: AuditEntry[]; more: boolean }> {
    const select = this.filtered(query);
    if (query.beforeSeq !== undefined) select.andWhere('e.seq < :beforeSeq', { beforeSeq: query.beforeSeq });
    const rows = await select.orderBy('e.seq', 'DESC').limit(query.limit + 1).getMany();
    return { entries: rows.slice(0, query.limit).map(toStored), more: rows.length > query.limit };
  }

  /**
   * One page of an export: the query's filters, oldest first, after `afterSeq` (keyset paging, so
   * every page costs the same however deep) and at most `uptoSeq`, the newest entry when the export
   * began: an export is the trail as it stood then, however long the client takes to read it.
   */
  async exportPage(query: AuditQuery, afterSeq: number, uptoSeq: number, limit: number): Promise<AuditEntry[]> {
    const select = this.filtered(query).andWhere('e.seq > :afterSeq AND e.seq <= :uptoSeq', { afterSeq, uptoSeq });
    return (await select.orderBy('e.seq', 'ASC').limit(limit).getMany()).map(toStored);
  }

  /** The newest seq that is committed (appends are serialized, so nothing below it can still appear). */
  async newestSeq(): Promise<number> {
    const [row]: Array<{ seq: string | null }> = await this.db.query('SELECT max(seq) AS seq FROM audit.entries');
    return Number(row.seq ?? 0);
  }

  /** The JSON query's and the export's filters: one definition, so both select the same entries. */
  private filtered(query: AuditQuery) {
    const select = this.db.manager.createQueryBuilder(AuditEntryEntity, 'e');
    // A name longer than a key is stored as its bounded key: the filter matches the name as given or its key.
    if (query.tool !== undefined) select.andWhere('e.tool IN (:...tools)', { tools: [...new Set([query.tool, searchKey(query.tool)])] });
    if (query.version !== undefined) select.andWhere('e.version = :version', { version: query.version });
    if (query.principal !== undefined) select.andWhere('e.principal IN (:...principals)', { principals: [...new Set([query.principal, searchKey(query.principal)])] });
    if (query.type !== undefined) {
      select.andWhere('e.type = :type', { type: query.type });
      // The (type, seq) index leaves completed calls out; for any other type, say so and it answers.
      if (query.type !== TYPE_INDEX_LEAVES_OUT) select.andWhere(`e.${TYPE_INDEX_PREDICATE}`);
    }
    // An outcome matches as recorded (`refused:invalid_arguments`) or by its class before the colon (`refused`).
    if (query.outcome !== undefined) select.andWhere("(e.outcome = :outcome OR split_part(e.outcome, ':', 1) = :outcome)", { outcome: query.outcome });
    if (query.from !== undefined) select.andWhere('e.occurredAt >= :from', { from: query.from.toISOString() });
    if (query.to !== undefined) select.andWhere('e.occurredAt < :to', { to: query.to.toISOString() });
    return select;
  }

  /**
   * Registry entries of one topic after a seq, oldest first (the event stream's replay and live feed,
   * webhook deliveries). Registry entries have no outcome: saying so lets the partial (topic, seq)
   * index answer, which call records stay out of.
   */
  async topicEntriesAfter(topic: string, afterSeq: number, limit: number): Promise<AuditEntry[]> {
    const rows = await this.db.manager.find(AuditEntryEntity, { where: { topic, outcome: IsNull(), seq: MoreThan(String(afterSeq)) }, order: { seq: 'ASC' }, take: limit });
    return rows.map(toStored);
  }

  /**
   * The first registry entry of `topic` that happened after `time`. Entries are recorded in log
   * order, not clock order: this is where the running maximum of their times first passes `time`.
   */
  async firstSeqAfter(topic: string, time: string): Promise<number | undefined> {
    const [row]: Array<{ seq: string | null }> = await this.db.query(
      'SELECT min(seq) AS seq FROM audit.entries WHERE topic = $1 AND outcome IS NULL AND occurred_at > $2', [topic, time],
    );
    return row.seq === null ? undefined : Number(row.seq);
  }

  async lastSeq(): Promise<number> {
    const head = await this.db.manager.findOneByOrFail(ChainHeadEntity, { id: 1 });
    return Number(head.lastSeq);
  }

  /** Principals that called a tool (optionally one version), per version, most recent first. */
  async callers(tool: string, version: string | undefined): Promise<CallerRow[]> {
    const select = this.db.manager.createQueryBuilder(AuditEntryEntity, 'e')
      .select('e.principal', 'principal')
      .addSelect(CALLER_TENANT, 'tenant')
      .addSelect('e.version', 'version')
      .addSelect('count(*)', 'calls')
      .addSelect("count(*) FILTER (WHERE e.outcome LIKE 'refused:%')", 'refused')
      .addSelect('max(e.occurredAt)', 'last_call_at')
      .where('e.tool = :tool', { tool })
      .andWhere('e.type IN (:...types)', { types: CALL_TYPES });
    if (version !== undefined) select.andWhere('e.version = :version', { version });
    const rows = await select
      .groupBy('e.principal').addGroupBy('tenant').addGroupBy('e.version')
      .orderBy('last_call_at', 'DESC').addOrderBy('e.principal').addOrderBy('tenant', 'ASC', 'NULLS FIRST')
      .getRawMany<{ principal: string; tenant: string | null; version: string | null; calls: string; refused: string; last_call_at: Date }>();
    return rows.map((r) => ({
      principal: r.principal,
      ...(r.tenant === null ? {} : { tenant: r.tenant }),
      version: r.version,
      calls: Number(r.calls),
      refused: Number(r.refused),
      lastCallAt: r.last_call_at.toISOString(),
    }));
  }

  /**
   * Recomputes the whole chain from one snapshot, so appends running meanwhile cannot confuse it.
   * Rows come as arrays of text in keyset pages, and the next page is asked for before this one
   * is hashed, so PostgreSQL reads while node hashes; the payload is hashed as stored
   * (ChainVerifier.acceptStored). Hydrating entities and parsing every payload took most of a
   * million-entry verify.
   */
  async verify(): Promise<VerifyResult> {
    return this.inTransaction(async (runner) => {
      const head = await runner.manager.findOneByOrFail(ChainHeadEntity, { id: 1 });
      const verifier = new ChainVerifier({ lastSeq: Number(head.lastSeq), hash: head.hash } satisfies ChainHead);
      const client = (await runner.connect()) as ArrayQueryClient;
      let page = verifyPage(client, '0');
      for (;;) {
        const rows = await page;
        if (rows.length === VERIFY_BATCH) page = verifyPage(client, rows[rows.length - 1][0]);
        for (const row of rows) verifier.acceptStored(storedLink(row), row[10]);
        if (rows.length < VERIFY_BATCH) return verifier.result();
      }
    }, 'REPEATABLE READ');
  }

  private inTransaction<T>(work: (runner: QueryRunner) => Promise<T>, isolation?: 'REPEATABLE READ'): Promise<T> {
    return inTransaction(this.db, work, isolation);
  }

}

/** The one call of pg's client that verify makes: rows as arrays rather than objects. */
interface ArrayQueryClient {
  query(config: { text: string; values: unknown[]; rowMode: 'array' }): Promise<{ rows: VerifyRow[] }>;
}

/** seq, event_id, topic, type, stream, tool, version, principal, outcome, occurred_at (epoch ms), payload, prev_hash, hash. */
type VerifyRow = [string, string, string, string, string, string | null, string | null, string, string | null, string, string, string, string];

// occurred_at as epoch milliseconds (exact: numeric since PostgreSQL 14, and stored from millisecond ISO text),
// turned back into the ISO text the entry was hashed with; cheaper than the driver parsing a timestamptz.
// Ordered by e.seq: a bare \`seq\` would name the text column of the select list.
const VERIFY_PAGE = `SELECT e.seq::text, e.event_id, e.topic, e.type, e.stream, e.tool, e.version, e.principal, e.outcome,
  floor(extract(epoch FROM e.occurred_at) * 1000)::text, e.payload, e.prev_hash, e.hash
  FROM audit.entries e WHERE e.seq > $1 ORDER BY e.seq LIMIT $2`;

function verifyPage(client: ArrayQueryClient, after: string): Promise<VerifyRow[]> {
  return client.query({ text: VERIFY_PAGE, values: [after, VERIFY_BATCH], rowMode: 'array' }).then((result) => result.rows);
}

function storedLink(row: VerifyRow): StoredLink {
  return {
    seq: Number(row[0]), eventId: row[1], topic: row[2], type: row[3], stream: row[4], tool: row[5], version: row[6],
    principal: row[7], outcome: row[8], occurredAt: new Date(Number(row[9])).toISOString(), prevHash: row[11], hash: row[12],
  };
}
