/**
 * GET /v1/audit/verify's work on a trail of N call records, without the HTTP hop:
 * `node -r @swc-node/register bench/verify.quick.ts [N]`. Fills a fresh database through the trail's own
 * batched append, then times AuditRepository.verify twice and prints wall time and CPU (this process,
 * and PostgreSQL's backends) per entry. Writes nothing.
 */
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import type { EventEnvelope } from '@estate/events';
import { inTransaction, openDatabase } from '@estate/platform';
import { toAuditEntry } from '../apps/audit/src/domain/audit-entry.mapper';
import { AuditRepository } from '../apps/audit/src/store/audit.repository';
import { AUDIT_ENTITIES, AUDIT_MIGRATIONS } from '../apps/audit/src/store/migrations';
import { storableEntry } from '../apps/audit/src/store/storable-entry';
import { appendChained } from '../apps/audit/src/store/trail.appender';
import { startBenchDatabase } from './ingest.bench';
import { runBench } from './support/bench.cli';
import { startCpuSpan } from './support/cpu.meter';

function callRecord(i: number) {
  const envelope: EventEnvelope = {
    id: randomUUID(), type: 'ToolCallCompleted', version: 1, stream: `principal:agent-${i % 50}`, position: 0,
    occurredAt: new Date(Date.UTC(2026, 0, 1) + i).toISOString(), actor: `agent-${i % 50}`, correlationId: randomUUID(),
    data: { tool: `tool.${i % 300}`, principal: `agent-${i % 50}`, version: '1.2.0', outcome: 'ok', durationMs: i % 97, attempts: 1, repaired: 0 },
  };
  return storableEntry(toAuditEntry('calls', 'estate.calls', envelope));
}

async function main(): Promise<void> {
  const n = Number(process.argv[2] ?? 200_000);
  const logger = pino({ level: 'warn' }, pino.destination(2));
  const pg = await startBenchDatabase(logger);
  const db = await openDatabase({ url: await pg.create(), schema: 'audit', migrations: AUDIT_MIGRATIONS, entities: AUDIT_ENTITIES, poolSize: 2 });
  try {
    for (let at = 0; at < n; at += 10_000) {
      const batch = Array.from({ length: Math.min(10_000, n - at) }, (_, i) => callRecord(at + i));
      await inTransaction(db, (runner) => appendChained(runner, batch, { notify: false }));
    }
    const repo = new AuditRepository(db);
    for (const round of [1, 2]) {
      const cpu = startCpuSpan({ node: 'self', postgres: [pg.postmaster] });
      const started = process.hrtime.bigint();
      const result = await repo.verify();
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const used = cpu.stop();
      const perEntry = (s: number) => ((s * 1e6) / n).toFixed(1);
      process.stdout.write(`round ${round}: ${n} entries, ok ${result.ok}, ${seconds.toFixed(2)} s, ${Math.round(n / seconds)} entries/s, CPU µs/entry: node ${perEntry(used.node)}, postgres ${perEntry(used.postgres)}\n`);
    }
  } finally {
    await db.destroy();
    await pg.stop();
  }
}

runBench(main);
