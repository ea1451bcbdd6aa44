import type { DataSource } from 'typeorm';
import type { DeprecationCaller, EventEnvelope } from '@estate/events';
import type { AuditEntry } from '../domain/audit-entry.mapper';
import { CALL_TYPES, CALLER_TENANT } from '../store/audit.repository';
import { DEPRECATION_CALLERS_TYPE, MAX_NAMED_CALLERS } from './deprecation-callers';



interface EntryRow {
  seq: string; event_id: string; topic: string; type: string; stream: string; tool: string | null; version: string | null;
  principal: string; outcome: string | null; occurred_at: Date; payload: string; prev_hash: string; hash: string;
}

/**
 * Deprecations recorded after `afterSeq`, at least `settleMs` ago, that have no follow-up yet,
 * oldest first. The anti-join makes a restart (or a crash between the two appends) pick up
 * exactly what is missing.
 */
export async function pendingDeprecations(db: DataSource, topic: string, afterSeq: number, settleMs: number, limit: number): Promise<AuditEntry[]> {
  const rows: EntryRow[] = await db.query(
    `SELECT e.* FROM audit.entries e
      WHERE e.type = 'ToolVersionDeprecated' AND e.topic = $1 AND e.seq > $2
        AND e.recorded_at <= now() - $3 * interval '1 millisecond'
        AND NOT EXISTS (SELECT 1 FROM audit.entries f WHERE f.type = $4 AND f.event_id = e.event_id || '/callers')
      ORDER BY e.seq LIMIT $5`,
    [topic, afterSeq, settleMs, DEPRECATION_CALLERS_TYPE, limit],
  );
  return rows.map((r) => ({
    seq: Number(r.seq), eventId: r.event_id, topic: r.topic, type: r.type, stream: r.stream, tool: r.tool, version: r.version,
    principal: r.principal, outcome: r.outcome, occurredAt: r.occurred_at.toISOString(), payload: JSON.parse(r.payload) as EventEnvelope,
    prevHash: r.prev_hash, hash: r.hash,
  }));
}

/**
 * Distinct callers (subject and tenant) whose calls resolved to this version since `from`, most
 * recent first, with how many there are in all. The tenant is read from the call's own record.
 */
export async function versionCallersSince(db: DataSource, tool: string, version: string, from: Date): Promise<{ callers: DeprecationCaller[]; total: number }> {
  const rows: Array<{ principal: string; tenant: string | null; calls: string; last_call_at: Date; total: string }> = await db.query(
    `SELECT principal, ${CALLER_TENANT} AS tenant, count(*) AS calls, max(occurred_at) AS last_call_at, count(*) OVER () AS total
       FROM audit.entries e
      WHERE tool = $1 AND version = $2 AND type = ANY($3) AND occurred_at >= $4
      GROUP BY principal, tenant
      ORDER BY last_call_at DESC, principal, tenant NULLS FIRST
      LIMIT $5`,
    [tool, version, CALL_TYPES, from.toISOString(), MAX_NAMED_CALLERS],
  );
  return {
    callers: rows.map((r) => ({ principal: r.principal, ...(r.tenant === null ? {} : { tenant: r.tenant }), calls: Number(r.calls), lastCallAt: r.last_call_at.toISOString() })),
    total: rows.length > 0 ? Number(rows[0].total) : 0,
  };
}
