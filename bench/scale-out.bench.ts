/**
 * `npm run bench:scale-out`: tools/call per second with one edge and with two edges (32
 * concurrent sessions, split evenly over the copies, as a load balancer sticky by session would
 * spread them), and on one edge the 2026-07-28 revision (no session, 32 concurrent clients)
 * against session-based calls. The zero-work upstream answers every call, so the figures are the
 * edges' own cost. Writes its section of BENCHMARKS.md (between the scale-out markers) itself.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLogger, issueDevToken } from '@estate/platform';
import { BENCH_AGENT, benchCatalog, NOOP_ARGUMENTS, NOOP_TOOL } from './catalog.fixture';
import { toMarkdown, type BenchTable } from './contracts.bench';
import { machineLines } from './report.writer';
import { StatelessPoster } from './scale-out.client';
import { REPO_ROOT, startBenchServer, type BenchChild } from './support/child-process.launcher';
import { BENCH_SECRET, benchTopicPrefix, feedCatalog, startEdgeChild, type EdgeChild } from './support/edge.launcher';
import { acquireKafka } from './support/kafka.lease';
import { concurrentThroughput, round, type ThroughputStats } from './support/load.runner';
import { loadAgent, McpHttpSession } from './support/mcp-http.client';

const CONCURRENCY = 32;
const CATALOG = 20;
const COMMAND = 'npm run bench:scale-out';
const BEGIN = '<!-- scale-out bench: begin (written by npm run bench:scale-out) -->';
const END = '<!-- scale-out bench: end -->';
/** Each subject is measured this many times, alternating, so a noisy moment lands on all alike. */
const ROUNDS = 5;
const BUDGET = { count: 30_000, maxMs: 4_000 };

interface Figure {
  label: string;
  copies: number;
  load: ThroughputStats[];
  cpuMs: number[];
}

type Worker = () => Promise<unknown>;

/** One timed run; CPU is user+system of every process on the path (edges and upstream) per call. */
async function measure(workers: Worker[], processes: BenchChild[]): Promise<{ load: ThroughputStats; cpuMs: number }> {
  const cpu = () => processes.reduce((sum, p) => sum + p.cpuMs(), 0);
  await Promise.all(workers.map((w) => w()));
  const before = cpu();
  const load = await concurrentThroughput(workers, BUDGET);
  if (load.errors > 0) throw new Error(`${load.errors} calls failed, first: ${load.firstError}`);
  return { load, cpuMs: (cpu() - before) / Math.max(1, load.requests) };
}

async function sessionWorkers(edges: EdgeChild[], token: string): Promise<Worker[]> {
  const sessions = await Promise.all(Array.from({ length: CONCURRENCY }, (_, i) => McpHttpSession.open(edges[i % edges.length].mcpUrl, token)));
  return sessions.map((s) => () => s.expect('tools/call', { name: NOOP_TOOL, arguments: NOOP_ARGUMENTS }));
}

function statelessWorkers(edge: EdgeChild, token: string): Worker[] {
  return Array.from({ length: CONCURRENCY }, () => {
    const client = new StatelessPoster(new URL(edge.mcpUrl), token);
    return () => client.call(NOOP_TOOL, NOOP_ARGUMENTS);
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function table(figures: Figure[], name: string, baseline: Figure): BenchTable {
  return {
    name,
    rows: figures.map((f) => {
      const perSecond = median(f.load.map((l) => l.perSecond));
      return {
        subject: f.label,
        'edge copies': f.copies,
        [`calls/s at ${CONCURRENCY} (median of ${ROUNDS})`]: Math.round(perSecond),
        'runs (calls/s)': f.load.map((l) => Math.round(l.perSecond)).join(' / '),
        'vs first row': round(perSecond / median(baseline.load.map((l) => l.perSecond)), 2),
        'CPU per call, edges + upstream (ms)': round(median(f.cpuMs), 3),
        'calls measured': f.load.reduce((sum, l) => sum + l.requests, 0),
      };
    }),
  };
}

function section(tables: BenchTable[], loadAtStart: number[], kafka: string, seconds: number): string {
  return [
    BEGIN,
    '## Several edge copies, and 2026-07-28 against sessions (`npm run bench:scale-out`)',
    '',
    ...machineLines(COMMAND, kafka, loadAtStart),
    `- whole run: ${seconds.toFixed(0)} s`,
    '',
    `Built edges (dist/apps/mcp-edge/src/main.js) as separate processes on Kafka, each with its own replica of a ${CATALOG}-tool catalog;`,
    `the zero-work upstream (bench/noop-upstream.server.ts) answers \`${NOOP_TOOL}\`. ${CONCURRENCY} workers call in a loop for up to`,
    `${BUDGET.maxMs / 1000} s per run; subjects alternate over ${ROUNDS} rounds and the median is shown. With two copies the ${CONCURRENCY}`,
    'sessions are split 16/16, as a balancer sticky by Mcp-Session-Id spreads them. A 2026-07-28 worker opens no session: every',
    'POST carries its version in `_meta`. CPU per call is user+system time from /proc/<pid>/stat of every edge and the upstream over',
    'the run, divided by the calls: it moves far less with the load of a shared machine than throughput does. On a machine with',
    `${os.cpus().length} cores shared with the load generator, a second copy adds no cores, so calls/s cannot double here; the copies`,
    'share nothing per call (no lock, no database round trip), so what a second copy adds is set by the cores it is given.',
    '',
    toMarkdown(tables),
    END,
  ].join('\n');
}

/** Replaces the section between the markers, or appends it. */
function writeSection(text: string): void {
  const file = path.join(REPO_ROOT, 'BENCHMARKS.md');
  const current = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const from = current.indexOf(BEGIN);
  const to = current.indexOf(END);
  const next = from >= 0 && to > from ? `${current.slice(0, from)}${text}${current.slice(to + END.length)}` : `${current.trimEnd()}\n\n${text}\n`;
  writeFileSync(file, next);
}

async function main(): Promise<void> {
  const started = Date.now();
  const loadAtStart = os.loadavg();
  const logger = createLogger('bench-scale-out', 'warn');
  const kafka = await acquireKafka();
  const upstream = await startBenchServer('noop-upstream.server.ts', { BENCH_LIST_TOOLS: String(CATALOG) });
  const children: BenchChild[] = [upstream.child];
  try {
    const prefix = benchTopicPrefix();
    await feedCatalog(kafka.brokers, prefix, benchCatalog(CATALOG, upstream.url), logger);
    const token = await issueDevToken(BENCH_SECRET, BENCH_AGENT);
    const edges = [await startEdgeChild(kafka.brokers, prefix, CATALOG), await startEdgeChild(kafka.brokers, prefix, CATALOG)];
    children.push(...edges.map((e) => e.child));
    const subjects = {
      one: { label: 'sessions, one edge', copies: 1, workers: await sessionWorkers([edges[0]], token), processes: [edges[0].child, upstream.child] },
      two: { label: 'sessions, two edges', copies: 2, workers: await sessionWorkers(edges, token), processes: [edges[0].child, edges[1].child, upstream.child] },
      stateless: { label: '2026-07-28 (no session), one edge', copies: 1, workers: statelessWorkers(edges[0], token), processes: [edges[0].child, upstream.child] },
    };
    const figures = Object.fromEntries(Object.entries(subjects).map(([key, s]) => [key, { label: s.label, copies: s.copies, load: [], cpuMs: [] } as Figure]));
    for (let r = 0; r < ROUNDS; r += 1) {
      for (const [key, subject] of Object.entries(subjects)) {
        process.stderr.write(`[bench] round ${r + 1}/${ROUNDS}: ${subject.label}\n`);
        const { load, cpuMs } = await measure(subject.workers, subject.processes);
        figures[key].load.push(load);
        figures[key].cpuMs.push(cpuMs);
      }
    }
    const tables = [
      table([figures.one, figures.two], 'tools/call, one edge against two edges (session-based clients)', figures.one),
      table([figures.one, figures.stateless], 'tools/call on one edge: session-based against 2026-07-28', figures.one),
    ];
    writeSection(section(tables, loadAtStart, `${kafka.source} at ${kafka.brokers.join(',')}`, (Date.now() - started) / 1000));
    process.stdout.write(`${toMarkdown(tables)}\n`);
  } finally {
    loadAgent.destroy();
    for (const child of children.reverse()) await child.stop();
    await kafka.release();
  }
}

void main().then(() => process.exit(0), (error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
