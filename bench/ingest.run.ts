/**
 * `node -r @swc-node/register bench/ingest.run.ts [records,...] [publishes,...] [kafka,postgres]`: audit ingest and discovery
 * catch-up on Kafka and on the embedded PostgreSQL log, printed as tables (npm run bench runs the
 * same measurements into BENCHMARKS.md). Default: 100,000 call records and 1,000 publishes.
 * npm run bench runs it at 100k and 1M records and 1,000 and 10,000 publishes.
 */
import os from 'node:os';
import { createLogger } from '@estate/platform';
import { toMarkdown } from './contracts.bench';
import { catchUpTable, measureCatchUp, type CatchUpFigures } from './catch-up.bench';
import { ingestTable, measureIngest, startBenchDatabase, type BusKind, type IngestFigures } from './ingest.bench';
import { verdict, type Verdict } from './report.writer';
import { writeBenchSection, sectionHeader } from './support/benchmarks.section';
import { acquireKafka } from './support/kafka.lease';


export async function runIngestBenches(brokers: string[], sizes: number[], publishes: number | number[], progress: (line: string) => void, buses: BusKind[] = ['kafka', 'postgres']) {
  const logger = createLogger('bench', 'warn');
  const db = await startBenchDatabase(logger);
  try {
    const ingest: IngestFigures[] = [];
    for (const records of sizes) {
      for (const bus of buses) {
        progress(`audit ingest of ${records} call records on ${bus}`);
        ingest.push(await measureIngest(bus, records, brokers, db, logger));
      }
    }
    const catchUp: CatchUpFigures[] = [];
    for (const count of [publishes].flat().filter((n) => n > 0)) {
      for (const bus of buses) {
        progress(`discovery catch-up after ${count} publishes on ${bus}`);
        catchUp.push(await measureCatchUp(bus, count, brokers, db, logger));
      }
    }
    return { ingest, catchUp, tables: catchUp.length > 0 ? [ingestTable(ingest), catchUpTable(catchUp)] : [ingestTable(ingest)] };
  } finally {
    await db.stop();
  }
}

async function main(): Promise<void> {
  const sizes = (process.argv[2] ?? '100000').split(',').map(Number);
  const publishes = (process.argv[3] ?? '1000').split(',').map(Number);
  // A third argument picks the buses (e.g. `kafka`); 0 publishes skips the catch-up figure.
  const buses = (process.argv[4] ?? 'kafka,postgres').split(',') as BusKind[];
  const started = Date.now();
  const kafka = await acquireKafka();
  try {
    const load = os.loadavg();
    const { tables } = await runIngestBenches(kafka.brokers, sizes, publishes, (line) => process.stderr.write(`[ingest ${((Date.now() - started) / 1000).toFixed(0)} s] ${line}\n`), buses);
    process.stdout.write(`${toMarkdown(tables)}\n`);
    const command = `node -r @swc-node/register bench/ingest.run.ts ${process.argv.slice(2).join(' ')}`.trim();
    writeBenchSection('Audit ingest and discovery catch-up (bench/ingest.run.ts)', [
      ...sectionHeader(command, load),
      `- kafka: ${kafka.brokers.join(',')}`,
      '- CPU per record: user + system from /proc/<pid>/stat from audit\'s start to the last position. "audit" is the bench process (audit runs in it; the log was filled before); "PostgreSQL" is the postmaster and all its backends; the broker is shared with other clients, so its share is an upper bound.',
      '- Issue 15 target: ≥ 20,000 records/s on Kafka. On 2 idle cores that needs ≤ 0.1 ms of CPU per record in total, and audit and PostgreSQL working at the same time rather than in turn.',
      '',
      toMarkdown(tables),
    ]);
  } finally {
    await kafka.release();
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`ingest bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = 1;
  });
}

/** Issue 15's targets for these figures: audit ingest on Kafka, and discovery's lag behind a burst. */
export function ingestVerdicts(ingest: IngestFigures[], catchUp: CatchUpFigures[]): Verdict[] {
  const verdicts: Verdict[] = [];
  const kafka = ingest.filter((f) => f.bus === 'kafka').sort((a, b) => b.records - a.records)[0];
  if (kafka) verdicts.push(verdict(`audit ingest on Kafka, ${kafka.records} call records`, kafka.perSecond, { min: 20_000 }, ' records/s', `before batching: ~470 records/s (issue 15)`));
  const burst = catchUp.find((f) => f.bus === 'kafka');
  if (burst) verdicts.push(verdict(`discovery has applied a burst of ${burst.publishes} publishes, after the last`, burst.visibleAfterLastMs / 1000, { max: 1 }, ' s', '3.2 s after 800 (issue 15)'));
  return verdicts;
}
