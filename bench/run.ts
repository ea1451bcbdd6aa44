/**
 * `npm run bench`: contracts, edge traffic, sessions, profiles and publish → list_changed, each
 * against a baseline from the same run, written to BENCHMARKS.md at the repository root. Audit
 * ingest (100k and 1M call records) and discovery catch-up (1,000 and 10,000 publishes) run here on
 * both buses; discovery's rebuild of 100k- and 1M-event logs on both buses is `npm run bench:rebuild`,
 * which writes a section of its own that this file keeps.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '@estate/platform';
import { runContractsBench, type BenchTable } from './contracts.bench';
import { CATALOG_SIZE, runEdgeBench } from './edge.bench';
import { edgeVerdicts, methodNotes } from './edge-targets.rules';
import { ingestVerdicts, runIngestBenches } from './ingest.run';
import { measureNotify, type NotifyFigures } from './notify.bench';
import { closePublishClient, measurePublish, publishTable, type PublishFigures } from './publish.bench';
import { renderReport, verdict, machineLines, type Verdict } from './report.writer';
import { benchOwnedSections } from './support/benchmarks.section';
import { REPO_ROOT, startBenchServer } from './support/child-process.launcher';
import { acquireKafka } from './support/kafka.lease';
import { loadAgent } from './support/mcp-http.client';
import { round } from './support/load.runner';

const COMMAND = 'npm run bench   (node -r @swc-node/register bench/run.ts)';
const started = Date.now();
const loadAtStart = os.loadavg();

function progress(line: string): void {
  process.stderr.write(`[bench ${((Date.now() - started) / 1000).toFixed(0)} s] ${line}\n`);
}

function contractVerdicts(tables: BenchTable[]): Verdict[] {
  return tables[0].rows.map((row) => {
    const ratio = Number(row['validate / ajv']);
    return verdict(`validate() cost per call, ${row.input} payment`, 1 / ratio, { max: 1.2 }, '×', `compiled ajv: ${row['ajv compiled (ops/s)']} ops/s`);
  });
}

function notifyTable(figures: NotifyFigures[]): BenchTable {
  const baseline = figures.find((f) => f.bus === 'in-process');
  return {
    name: 'publish → notifications/tools/list_changed at an SDK client (registry → relay → bus → discovery → edge)',
    rows: figures.map((f) => ({
      bus: f.bus === 'kafka' ? 'Kafka (local broker)' : 'in-process bus (baseline)',
      samples: f.latency.samples,
      missed: f.missed,
      'p50 (ms)': round(f.latency.p50, 1),
      'p99 (ms)': round(f.latency.p99, 1),
      'p99 / in-process p99': baseline ? round(f.latency.p99 / baseline.latency.p99, 2) : '-',
      'of which POST /v1/tools answered, p50 (ms)': round(f.publish.p50, 1),
      'POST p99 (ms)': round(f.publish.p99, 1),
    })),
  };
}

/** Where publish → list_changed spends its time, hop by hop, on each bus. */
function notifyHopsTable(figures: NotifyFigures[]): BenchTable {
  return {
    name: 'publish → list_changed, hop by hop (ms; a hop without both ends on a bus is left out)',
    rows: figures.flatMap((f) => f.hops.filter((h) => h.stats.samples > 0).map((h) => ({
      bus: f.bus === 'kafka' ? 'Kafka' : 'in-process',
      hop: h.hop,
      samples: h.stats.samples,
      'p50 (ms)': round(h.stats.p50, 1),
      'p99 (ms)': round(h.stats.p99, 1),
    }))),
  };
}

/** Issue 15's publish targets, at 16 concurrent clients on each bus. */
function publishVerdicts(figures: PublishFigures[]): Verdict[] {
  const sequential = (bus: string) => figures.find((f) => f.bus === bus && f.clients === 1);
  return figures.filter((f) => f.clients === 16).flatMap((f) => {
    const baseline = `1 client: ${Math.round(sequential(f.bus)?.perSecond ?? 0)}/s`;
    return [
      verdict(`publishes/s at 16 clients (${f.bus})`, f.perSecond, { min: 1000 }, '/s', baseline),
      verdict(`publish p99 at 16 clients (${f.bus})`, f.latency.p99, { max: 50 }, ' ms', baseline),
    ];
  });
}

async function main(): Promise<void> {
  progress('building dist/');
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: REPO_ROOT, stdio: 'inherit' });
  const logger = createLogger('bench', 'warn');
  progress('contracts');
  const contracts = await runContractsBench();
  const kafka = await acquireKafka();
  try {
    progress(`kafka at ${kafka.brokers.join(',')}`);
    const edge = await runEdgeBench(kafka.brokers, logger, progress);
    const upstream = await startBenchServer('noop-upstream.server.ts');
    let notify: NotifyFigures[];
    try {
      progress('publish → list_changed over Kafka');
      const overKafka = await measureNotify(kafka.brokers, upstream.url);
      progress('publish → list_changed over the in-process bus');
      notify = [overKafka, await measureNotify(undefined, upstream.url)];
    } finally {
      await upstream.child.stop();
    }
    progress('publish throughput over Kafka and the in-process bus');
    const publish = [...(await measurePublish(kafka.brokers, progress)), ...(await measurePublish(undefined, progress))];
    progress('audit ingest and discovery catch-up');
    // Catch-up after 1,000 publishes (issue 15's target) and after 10,000 (how it grows); the rebuild at 100k and 1M events is `npm run bench:rebuild`'s section.
    const ingest = await runIngestBenches(kafka.brokers, [100_000, 1_000_000], [1000, 10_000], progress);
    const verdicts = [...contractVerdicts(contracts), ...edgeVerdicts(edge, notify), ...publishVerdicts(publish), ...ingestVerdicts(ingest.ingest, ingest.catchUp)];
    const report = renderReport({
      machine: machineLines(COMMAND, `${kafka.source} at ${kafka.brokers.join(',')}`, loadAtStart),
      verdicts,
      method: methodNotes(),
      tables: [...contracts, ...edge.tables, notifyTable(notify), notifyHopsTable(notify), publishTable(publish), ...ingest.tables],
      profiles: [
        { title: `tools/call, 32 concurrent sessions (${Math.round(edge.profiles.call.load.perSecond)} req/s while profiled)`, summary: edge.profiles.call.summary },
        { title: `tools/list, 32 concurrent sessions, ${CATALOG_SIZE} tools (${Math.round(edge.profiles.list.load.perSecond)} req/s while profiled)`, summary: edge.profiles.list.summary },
      ],
      seconds: (Date.now() - started) / 1000,
    });
    writeFileSync(path.join(REPO_ROOT, 'BENCHMARKS.md'), report + benchOwnedSections());
    progress(`wrote BENCHMARKS.md (${verdicts.filter((v) => !v.met).length} of ${verdicts.length} targets missed)`);
  } finally {
    loadAgent.destroy();
    closePublishClient();
    await kafka.release();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
