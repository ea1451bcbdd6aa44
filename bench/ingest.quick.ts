/**
 * Audit's recording of call records without a broker: `node -r @swc-node/register bench/ingest.quick.ts [records] [batch] [rounds]`
 * (default 100,000 records in batches of 5,000, 3 rounds; DROP_IDX=name,... drops secondary indexes of audit.entries first). Each batch goes through AuditConsumer.record and the
 * position write in one transaction, as the bus transport runs them, on a fresh embedded PostgreSQL; prints CPU
 * per record (this process, and PostgreSQL's backends) and the statements per batch. Kafka's share and its
 * noise stay out, so old and new code compare on the same work. Writes nothing.
 */
import pino from 'pino';
import { BusContext, DeadLetterOffice, inTransaction, messageEventId, openDatabase, type BusMessage, type EventBus } from '@estate/platform';
import { AuditConsumer } from '../apps/audit/src/audit.consumer';
import { AuditRepository } from '../apps/audit/src/store/audit.repository';
import { AUDIT_ENTITIES, AUDIT_MIGRATIONS } from '../apps/audit/src/store/migrations';
import { callRecord, startBenchDatabase } from './ingest.bench';
import { runBench } from './support/bench.cli';
import { startCpuSpan } from './support/cpu.meter';

const TOPIC = 'bench.calls';

/** What the edge sends per call, as the bus hands it to a handler. */
function callMessage(i: number): BusMessage {
  const { key, value, headers } = callRecord(i);
  return { topic: TOPIC, partition: 0, offset: String(i), key: key ?? null, value, headers: headers ?? {} };
}

/** Counts the statements this process sends, by their first words. */
function countStatements(): Map<string, number> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the driver's prototype, patched for the count
  const { Client } = require('pg') as { Client: { prototype: { query: (...args: unknown[]) => unknown } } };
  const counts = new Map<string, number>();
  const query = Client.prototype.query;
  Client.prototype.query = function counted(this: unknown, ...args: unknown[]) {
    const q = args[0] as string | { text?: string; constructor: { name: string } };
    const text = typeof q === 'string' ? q : q.text ?? q.constructor.name;
    const key = text.replace(/\s+/g, ' ').trim().slice(0, 60);
    counts.set(key, (counts.get(key) ?? 0) + 1);
    return query.apply(this, args);
  };
  return counts;
}

async function main(): Promise<void> {
  const [records, batch, rounds] = [Number(process.argv[2] ?? 100_000), Number(process.argv[3] ?? 5000), Number(process.argv[4] ?? 3)];
  const logger = pino({ level: 'warn' }, pino.destination(2));
  const pg = await startBenchDatabase(logger);
  const db = await openDatabase({ url: await pg.create(), schema: 'audit', migrations: AUDIT_MIGRATIONS, entities: AUDIT_ENTITIES, poolSize: 2 });
  // What an index of the trail costs an append: DROP_IDX=entries_type_seq,... drops those secondary indexes first.
  for (const index of (process.env.DROP_IDX ?? '').split(',').filter(Boolean)) {
    if (!/^entries_[a-z_]+$/.test(index) || index === 'entries_pkey') throw new Error(`DROP_IDX takes secondary index names of audit.entries, got ${index}`);
    await db.query(`DROP INDEX audit.${index}`);
  }
  const offices = new DeadLetterOffice({} as EventBus, 'bench.dead-letters', 'audit', logger);
  const consumer = new AuditConsumer(new AuditRepository(db), { registryEvents: 'bench.registry', calls: TOPIC }, 'bench', logger, offices);
  const positions = consumer.bindings().calls.transactional!.positions;
  const counts = countStatements();
  try {
    for (let round = 0; round < rounds; round += 1) {
      const messages = Array.from({ length: records }, (_, i) => callMessage(round * records + i));
      counts.clear();
      const cpu = startCpuSpan({ node: 'self', postgres: [pg.postmaster] });
      const started = process.hrtime.bigint();
      for (let at = 0; at < records; at += batch) {
        const slice = messages.slice(at, at + batch);
        const last = slice[slice.length - 1];
        await inTransaction(db, async (runner) => {
          const position = { next: String(Number(last.offset) + 1), lastEventId: messageEventId(last) };
          const batchPosition = { position, storedByHandler: false };
          const context = new BusContext([{ topic: TOPIC, partition: 0, firstOffset: slice[0].offset, lastOffset: last.offset }, runner, [], batchPosition]);
          await consumer.record('calls', slice, context);
          if (!batchPosition.storedByHandler) await positions.set(runner, TOPIC, 0, position);
        });
      }
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const used = cpu.stop();
      const per = (s: number) => ((s * 1e6) / records).toFixed(1);
      const batches = Math.ceil(records / batch);
      const statements = [...counts.values()].reduce((a, b) => a + b, 0) / batches;
      process.stdout.write(`round ${round + 1}: ${records} records in batches of ${batch}, ${seconds.toFixed(2)} s, CPU µs/record: audit ${per(used.node)}, postgres ${per(used.postgres)}; ${statements.toFixed(1)} statements per batch\n`);
    }
    process.stdout.write(`${[...counts].map(([k, v]) => `  ${v}\t${k}`).join('\n')}\n`);
  } finally {
    await db.destroy();
    await pg.stop();
  }
}

runBench(main);
