import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { EventEnvelope } from '@estate/events';
import { inTransaction, openDatabase } from '@estate/platform';
import { createTestDatabase } from '../../../../test/support/infra';
import { toAuditEntry, type AuditEntryContent } from '../domain/audit-entry.mapper';
import { entryHash, GENESIS_HASH } from '../domain/hash-chain';
import { AuditRepository } from './audit.repository';
import { AUDIT_ENTITIES, AUDIT_MIGRATIONS } from './migrations';
import { storableEntry } from './storable-entry';
import { appendChained, appendSegments } from './trail.appender';

function callEntry(i: number): AuditEntryContent {
  // A tab, a line break and a backslash in a column and in the payload: COPY's text format must carry them unchanged.
  const principal = i % 4 === 0 ? `agent\t${i % 3}\\\n` : `agent-${i % 3}`;
  const envelope: EventEnvelope = {
    id: randomUUID(), type: 'ToolCallCompleted', version: 1, stream: `principal:${principal}`, position: 0,
    occurredAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(), actor: principal, correlationId: `c${i}`,
    // Keys in a jsonb-hostile order and a NUL: the hash must not depend on how the payload is stored.
    data: { tool: 'payments.lookup', principal, version: '1.0.0', outcome: i % 5 === 0 ? 'tool_error' : 'ok', durationMs: i, attempts: 1, repaired: 0, note: `n\u0000${i}` },
  };
  return storableEntry(toAuditEntry('calls', 'estate.calls', envelope));
}

/** The chain as a verifier folds it: each hash from its predecessor, one entry at a time. */
function foldedChain(contents: AuditEntryContent[]): string[] {
  let prev = GENESIS_HASH;
  return contents.map((content) => (prev = entryHash(prev, content)));
}

describe('batched chained append', () => {
  const entries = Array.from({ length: 60 }, (_, i) => callEntry(i));
  // A redelivered event inside a batch and across a batch boundary: neither may take a link.
  const delivered = [...entries.slice(0, 30), entries[4], ...entries.slice(30), entries[29], entries[59]];
  // Segments of 4: a batch is inserted in pipelined segments, and the redelivered events fall in later segments, hashed before their lookup answered.
  const plans: Record<string, { batches: number[]; segmentSize?: number }> = {
    'one batch': { batches: [delivered.length] },
    'one entry per batch': { batches: delivered.map(() => 1) },
    'uneven batches': { batches: [7, 13, 1, 12, 20, 10] },
    'one batch in segments of 4': { batches: [delivered.length], segmentSize: 4 },
    'uneven batches in segments of 4': { batches: [7, 13, 1, 12, 20, 10], segmentSize: 4 },
  };
  const databases: Array<{ drop(): Promise<void> }> = [];
  const sources: DataSource[] = [];

  afterAll(async () => {
    for (const db of sources) await db.destroy();
    for (const db of databases) await db.drop();
  });

  async function trailDatabase(): Promise<DataSource> {
    const test = await createTestDatabase();
    databases.push(test);
    const db = await openDatabase({ url: test.url, schema: 'audit', migrations: AUDIT_MIGRATIONS, entities: AUDIT_ENTITIES, poolSize: 2 });
    sources.push(db);
    return db;
  }

  type TrailRow = { seq: number; event_id: string; prev_hash: string; hash: string };
  async function trailOf(db: DataSource): Promise<{ rows: TrailRow[]; verify: Awaited<ReturnType<AuditRepository['verify']>> }> {
    const rows: TrailRow[] = await db.query(`SELECT seq::int AS seq, event_id, prev_hash, hash FROM audit.entries ORDER BY seq`);
    return { rows, verify: await new AuditRepository(db).verify() };
  }

  async function appendIn(plan: { batches: number[]; segmentSize?: number }): ReturnType<typeof trailOf> {
    const db = await trailDatabase();
    let at = 0;
    for (const size of plan.batches) {
      const batch = delivered.slice(at, at + size);
      at += size;
      await inTransaction(db, (runner) => appendChained(runner, batch, { notify: false, segmentSize: plan.segmentSize }));
    }
    expect(at).toBe(delivered.length);
    return trailOf(db);
  }

  it('stores the same chain whatever the batch boundaries, each event once, and the verifier accepts it', async () => {
    const expected = foldedChain(entries);
    const results = [];
    for (const [name, plan] of Object.entries(plans)) {
      const result = await appendIn(plan);
      results.push(result);
      expect({ name, ids: result.rows.map((r) => r.event_id) }).toEqual({ name, ids: entries.map((e) => e.eventId) });
      expect({ name, hashes: result.rows.map((r) => r.hash) }).toEqual({ name, hashes: expected });
      // A batch meeting an event already recorded is appended again without it: seq has no gap for that.
      expect({ name, seqs: result.rows.map((r) => r.seq) }).toEqual({ name, seqs: entries.map((_, i) => i + 1) });
      expect(result.verify).toEqual({ ok: true, entries: entries.length, headHash: expected[expected.length - 1] });
    }
    for (const result of results.slice(1)) expect(result.rows).toEqual(results[0].rows);
  });

  it('keeps nothing of a pipelined batch whose later segment fails, and the batch appended again takes the same links', async () => {
    const db = await trailDatabase();
    await inTransaction(db, (runner) => appendChained(runner, entries.slice(0, 10), { notify: false, segmentSize: 4 }));
    // The third segment cannot be stored; the first two were inserted and the third hashed from their last hash before it failed.
    const failing = [...entries.slice(10, 18), { ...entries[18], occurredAt: 'not a time' }, ...entries.slice(19, 30)];
    await expect(inTransaction(db, (runner) => appendChained(runner, failing, { notify: false, segmentSize: 4 }))).rejects.toThrow(/timestamp/);
    expect((await trailOf(db)).rows.map((r) => r.event_id)).toEqual(entries.slice(0, 10).map((e) => e.eventId));
    await inTransaction(db, (runner) => appendChained(runner, entries.slice(10), { notify: false, segmentSize: 4 }));
    const expected = foldedChain(entries);
    const trail = await trailOf(db);
    expect(trail.rows.map((r) => r.hash)).toEqual(expected);
    expect(trail.rows.map((r) => r.event_id)).toEqual(entries.map((e) => e.eventId));
    expect(trail.verify).toEqual({ ok: true, entries: entries.length, headHash: expected[expected.length - 1] });
  });

  it('writes the ledger and the position of a batch whose events are all recorded, moving neither the head nor seq', async () => {
    const db = await trailDatabase();
    await inTransaction(db, (runner) => appendChained(runner, entries.slice(0, 10), { notify: false }));
    const head = await db.query(`SELECT last_seq::int AS seq, hash FROM audit.chain_head`);
    // A session that never drew from the sequence: the closing statement must not read currval there.
    const url = (db.options as { url: string }).url;
    const fresh = await openDatabase({ url, schema: 'audit', migrations: [], entities: AUDIT_ENTITIES, poolSize: 1 });
    sources.push(fresh);
    for (const batch of [entries.slice(0, 3), entries.slice(0, 10)]) {
      const last = String(batch.length - 1);
      const bookkeeping = { topic: 'estate.calls', partition: 0, offsets: batch.map((_, i) => String(i)), position: { next: String(batch.length), lastEventId: batch[batch.length - 1].eventId } };
      const appended = await inTransaction(fresh, (runner) => appendSegments(runner, [() => batch], { notify: true, bookkeeping }));
      expect({ last, appended }).toEqual({ last, appended: [] });
    }
    expect(await db.query(`SELECT last_seq::int AS seq, hash FROM audit.chain_head`)).toEqual(head);
    expect(await db.query(`SELECT next_offset::int AS next, last_event_id FROM audit.positions`)).toEqual([{ next: 10, last_event_id: entries[9].eventId }]);
    expect(await db.query(`SELECT first_offset::int AS first, next_offset::int AS next, handled::int FROM audit.consumed`)).toEqual([{ first: 0, next: 10, handled: 10 }]);
    await inTransaction(db, (runner) => appendChained(runner, entries.slice(10, 12), { notify: false }));
    expect((await trailOf(db)).rows.map((r) => r.seq)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
  });

  it('verifies a trail of several pages, accepts a payload rewritten with the same content and reports one whose content changed', async () => {
    const db = await trailDatabase();
    const long = Array.from({ length: 12_001 }, (_, i) => callEntry(i));
    await inTransaction(db, (runner) => appendChained(runner, long, { notify: false }));
    const expected = foldedChain(long);
    expect(await new AuditRepository(db).verify()).toEqual({ ok: true, entries: long.length, headHash: expected[expected.length - 1] });
    await db.query(`ALTER TABLE audit.entries DISABLE TRIGGER entries_append_only`);
    // Whitespace only: the stored text no longer hashes as read, but its content still does.
    await db.query(`UPDATE audit.entries SET payload = replace(payload, '"durationMs":', '"durationMs": ') WHERE seq = 7777`);
    expect(await new AuditRepository(db).verify()).toEqual({ ok: true, entries: long.length, headHash: expected[expected.length - 1] });
    await db.query(`UPDATE audit.entries SET payload = replace(payload, '"attempts":1', '"attempts":2') WHERE seq = 9001`);
    expect(await new AuditRepository(db).verify()).toEqual({ ok: false, entries: long.length, firstBrokenSeq: 9001 });
  });
});
