/**
 * `npm run bench`: contracts, edge traffic, sessions, profiles and publish → list_changed, each
 * against a baseline from the same run, written to BENCHMARKS.md at the repository root.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '@estate/platform';
import { runContractsBench, type BenchTable } from './contracts.bench';
import { CATALOG_SIZE, runEdgeBench, SESSIONS } from './edge.bench';
import { CONCURRENCY } from './edge-traffic.bench';
import { measureNotify, type NotifyFigures } from './notify.bench';
import { renderReport, verdict, machineLines, type Verdict } from './report.writer';
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
    })),
  };
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
    const t = edge.traffic;
    const verdicts: Verdict[] = [
      ...contractVerdicts(contracts),
      verdict('tools/call added latency p50 (edge − direct)', t.call.edge.p50 - t.call.direct.p50, { max: 0.25 }, ' ms', `direct p50 ${round(t.call.direct.p50)} ms; SDK pass-through adds ${round(t.call.passthrough.p50 - t.call.direct.p50)} ms`),
      verdict('tools/call added latency p99 (edge − direct)', t.call.edge.p99 - t.call.direct.p99, { max: 1 }, ' ms', `direct p99 ${round(t.call.direct.p99)} ms; SDK pass-through adds ${round(t.call.passthrough.p99 - t.call.direct.p99)} ms`),
      verdict(`tools/call throughput at ${CONCURRENCY} concurrent, edge / direct`, t.callThroughput.edge.perSecond / t.callThroughput.direct.perSecond, { min: 0.6 }, '×', `direct ${Math.round(t.callThroughput.direct.perSecond)} req/s; SDK pass-through ${round(t.callThroughput.passthrough.perSecond / t.callThroughput.direct.perSecond, 2)}×`),
      verdict(`filtered tools/list p99, ${CATALOG_SIZE} tools`, t.list.edge.p99, { max: 2 }, ' ms', `upstream's static ${t.listedTools.direct}-tool page p99 ${round(t.list.direct.p99)} ms`),
      verdict('publish → list_changed p99 through Kafka', notify[0].latency.p99, { max: 100 }, ' ms', `in-process bus p99 ${round(notify[1].latency.p99, 1)} ms`),
      verdict(`edge RSS with ${SESSIONS} open sessions`, edge.edgeMemory.rssAfterMb, { max: 200 }, ' MB', `SDK pass-through ${round(edge.passthroughMemory.rssAfterMb, 1)} MB`),
    ];
    const method = [
      'Load comes from a raw keep-alive HTTP client (node:http, bench/support/mcp-http.client.ts) that posts JSON-RPC and reads the SSE answer; every loop stops at a count or a time limit; everything listens on 127.0.0.1.',
      'Upstream: bench/noop-upstream.server.ts, the SDK low-level Server over Streamable HTTP whose `noop` tool answers at once, in its own process. "Direct" calls it straight; the SDK pass-through (bench/sdk-passthrough.server.ts, SDK Server + SDK Client, nothing else) and the edge sit in front of it, each in its own process.',
      `The edge runs from dist/apps/mcp-edge/src/main.js as a child process on Kafka. Its catalog (${CATALOG_SIZE} tools, two versions each, hidden from the caller by scope, tenant or classification in 5 of 8 cases) is fed directly onto its \`estate.catalog\` topic, the way discovery republishes it; the registry is not involved in the list and call figures.`,
      `Sequential latency: 4 interleaved rounds per subject (direct, pass-through, edge) so noise lands on all alike; throughput: ${CONCURRENCY} sessions, one request in flight each. Added latency = edge percentile − direct percentile.`,
      'The edge validates the arguments against the tool contract, resolves the version for the principal, checks the bearer token on every request and records every call on Kafka; the pass-through does none of that.',
      `Sessions: ${SESSIONS} sessions opened as an SDK client would (initialize, initialized, GET stream kept open); RSS read from /proc/<pid>/status of the server process.`,
      'publish → list_changed: the whole estate from dist/apps/estate/src/main.js (registry, discovery, audit, edge in one child, embedded PostgreSQL), once on Kafka and once on the in-process bus; an official SDK client listens; one publish (POST /v1/tools of a new visible tool) at a time, timed from the POST to the notification.',
      'CPU profiles come from separate edge runs under `node --cpu-prof`, so the measured runs carry no profiler overhead.',
    ];
    const report = renderReport({
      machine: machineLines(COMMAND, `${kafka.source} at ${kafka.brokers.join(',')}`, loadAtStart),
      verdicts,
      method,
      tables: [...contracts, ...edge.tables, notifyTable(notify)],
      profiles: [
        { title: `tools/call, 32 concurrent sessions (${Math.round(edge.profiles.call.load.perSecond)} req/s while profiled)`, summary: edge.profiles.call.summary },
        { title: `tools/list, 32 concurrent sessions, ${CATALOG_SIZE} tools (${Math.round(edge.profiles.list.load.perSecond)} req/s while profiled)`, summary: edge.profiles.list.summary },
      ],
      seconds: (Date.now() - started) / 1000,
    });
    writeFileSync(path.join(REPO_ROOT, 'BENCHMARKS.md'), report);
    progress(`wrote BENCHMARKS.md (${verdicts.filter((v) => !v.met).length} of ${verdicts.length} targets missed)`);
  } finally {
    loadAgent.destroy();
    await kafka.release();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
