import { NOOP_ARGUMENTS, NOOP_TOOL } from './catalog.fixture';
import type { BenchTable } from './contracts.bench';
import { concurrentThroughput, interleavedSamples, latencyStats, round, type LatencyStats, type ThroughputStats } from './support/load.runner';
import type { BenchChild } from './support/child-process.launcher';
import { McpHttpSession } from './support/mcp-http.client';

/** Where the same request is sent: straight to the upstream, through the SDK pass-through, through the edge. */
export interface Targets {
  direct: Target;
  passthrough: Target;
  edge: Target & { token: string };
}

interface Target {
  url: string;
  /** The server processes a request to this subject runs through; their CPU time is charged to it. */
  processes: BenchChild[];
}

type Subject = keyof Targets;
const SUBJECTS: Subject[] = ['direct', 'passthrough', 'edge'];
export const CONCURRENCY = 32;

/** The figures the verdicts in BENCHMARKS.md are computed from. */
export interface TrafficFigures {
  list: Record<Subject, LatencyStats>;
  listThroughput: Record<Subject, ThroughputStats>;
  /** Server CPU ms per request during the 32-way runs (all processes on the subject's path). */
  listCpu: Record<Subject, number>;
  callCpu: Record<Subject, number>;
  listedTools: Record<Subject, number>;
  call: Record<Subject, LatencyStats>;
  callThroughput: Record<Subject, ThroughputStats>;
}

async function sessions(targets: Targets, count: number): Promise<Record<Subject, McpHttpSession[]>> {
  const open = async (subject: Subject) => {
    const target = targets[subject];
    const token = 'token' in target ? target.token : undefined;
    return Promise.all(Array.from({ length: count }, () => McpHttpSession.open(target.url, token)));
  };
  return { direct: await open('direct'), passthrough: await open('passthrough'), edge: await open('edge') };
}

/** The page, timed from its send to its last byte: parsing 56 KB of JSON is the client's cost, not the server's. */
const listOnce = async (session: McpHttpSession) => {
  const result = await session.expect('tools/list', {});
  return { tools: result.tools, wireMs: session.lastWireMs };
};
/** The tool is `noop` upstream and `bench.noop` at the edge; both get the same arguments. */
const callOnce = (subject: Subject) => (session: McpHttpSession) =>
  session.expect('tools/call', { name: subject === 'edge' ? NOOP_TOOL : 'noop', arguments: NOOP_ARGUMENTS });

async function measure(
  targets: Targets, pool: Record<Subject, McpHttpSession[]>, op: (subject: Subject) => (session: McpHttpSession) => Promise<unknown>, sequential: number, concurrent: number,
): Promise<{ latency: Record<Subject, LatencyStats>; throughput: Record<Subject, ThroughputStats>; cpu: Record<Subject, number> }> {
  const singles = Object.fromEntries(SUBJECTS.map((s) => [s, () => op(s)(pool[s][0])]));
  const samples = await interleavedSamples(singles, 4, { count: sequential / 4, maxMs: 1_000, warmUp: 30 });
  const latency = Object.fromEntries(SUBJECTS.map((s) => [s, latencyStats(samples[s])])) as Record<Subject, LatencyStats>;
  const throughput = {} as Record<Subject, ThroughputStats>;
  const cpu = {} as Record<Subject, number>;
  for (const subject of SUBJECTS) {
    const workers = pool[subject].map((session) => () => op(subject)(session));
    const cpuNow = () => targets[subject].processes.reduce((sum, p) => sum + p.cpuMs(), 0);
    await Promise.all(workers.map((w) => w()));
    const before = cpuNow();
    throughput[subject] = await concurrentThroughput(workers, { count: concurrent, maxMs: 3_000 });
    cpu[subject] = (cpuNow() - before) / Math.max(1, throughput[subject].requests + throughput[subject].errors);
  }
  return { latency, throughput, cpu };
}

/** tools/list and tools/call, each over the three subjects, sequential latency then 32-way throughput. */
export async function runTraffic(targets: Targets): Promise<TrafficFigures> {
  const pool = await sessions(targets, CONCURRENCY);
  const listedTools = {} as Record<Subject, number>;
  for (const subject of SUBJECTS) listedTools[subject] = ((await listOnce(pool[subject][0])).tools as unknown[]).length;
  const list = await measure(targets, pool, () => listOnce, 2_000, 8_000);
  const call = await measure(targets, pool, callOnce, 4_000, 20_000);
  return {
    list: list.latency, listThroughput: list.throughput, listCpu: list.cpu, listedTools,
    call: call.latency, callThroughput: call.throughput, callCpu: call.cpu,
  };
}

const LABELS: Record<Subject, string> = {
  direct: 'direct to the upstream (baseline)',
  passthrough: 'plain SDK pass-through',
  edge: 'estate edge',
};

export function trafficTables(f: TrafficFigures, catalogSize: number, visible: number): BenchTable[] {
  const listRows = SUBJECTS.map((s) => ({
    path: LABELS[s],
    'tools in page': f.listedTools[s],
    'p50 (ms)': round(f.list[s].p50),
    'p99 (ms)': round(f.list[s].p99),
    'p99 / direct p99': round(f.list[s].p99 / f.list.direct.p99, 2),
    [`req/s at ${CONCURRENCY}`]: Math.round(f.listThroughput[s].perSecond),
    'req/s / direct': round(f.listThroughput[s].perSecond / f.listThroughput.direct.perSecond, 2),
    'server CPU per req (ms)': round(f.listCpu[s], 2),
    'CPU / direct': round(f.listCpu[s] / f.listCpu.direct, 2),
    errors: f.listThroughput[s].errors,
  }));
  const callRows = SUBJECTS.map((s) => ({
    path: LABELS[s],
    samples: f.call[s].samples,
    'p50 (ms)': round(f.call[s].p50),
    'p99 (ms)': round(f.call[s].p99),
    'added p50 (ms)': round(f.call[s].p50 - f.call.direct.p50),
    'added p99 (ms)': round(f.call[s].p99 - f.call.direct.p99),
    [`req/s at ${CONCURRENCY}`]: Math.round(f.callThroughput[s].perSecond),
    'req/s / direct': round(f.callThroughput[s].perSecond / f.callThroughput.direct.perSecond, 2),
    'server CPU per req (ms)': round(f.callCpu[s], 2),
    'CPU / direct': round(f.callCpu[s] / f.callCpu.direct, 2),
    errors: f.callThroughput[s].errors,
  }));
  return [
    { name: `edge: tools/list, ${catalogSize} tools in the catalog, ${visible} visible to the caller (first page)`, rows: listRows },
    { name: 'edge: tools/call of a zero-work tool, sequential latency and 32-way throughput', rows: callRows },
  ];
}
