import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { issueDevToken, type Logger } from '@estate/platform';
import { BENCH_AGENT, benchCatalog, NOOP_ARGUMENTS, NOOP_TOOL, visibleCount } from './catalog.fixture';
import type { BenchTable } from './contracts.bench';
import { profileIn, summarizeProfile, type ProfileSummary } from './cpu-profile.summary';
import { BURST_SESSIONS, measureBurst, type BurstFigures } from './edge-burst.bench';
import { measureSessionMemory, sessionRows, type SessionMemory } from './edge-sessions.bench';
import { CONCURRENCY, runTraffic, trafficTables, type TrafficFigures } from './edge-traffic.bench';
import { startBenchServer, type BenchChild } from './support/child-process.launcher';
import { BENCH_SECRET, benchTopicPrefix, feedCatalog, startEdgeChild } from './support/edge.launcher';
import { concurrentThroughput, round, type ThroughputStats } from './support/load.runner';
import { McpHttpSession } from './support/mcp-http.client';

export const CATALOG_SIZE = 1_000;
/** Issue 10: the edge's RSS with this many open sessions (each with its GET stream). */
export const SESSIONS = 10_000;
/** The SDK pass-through's per-session cost is the baseline; a thousand sessions show it. */
export const PASSTHROUGH_SESSIONS = 1_000;

export interface EdgeFigures {
  traffic: TrafficFigures;
  edgeMemory: SessionMemory;
  passthroughMemory: SessionMemory;
  idleRssMb: number;
  loadedRssMb: number;
  burst: { direct: BurstFigures; edge: BurstFigures };
  profiles: { call: { summary: ProfileSummary; load: ThroughputStats }; list: { summary: ProfileSummary; load: ThroughputStats } };
  tables: BenchTable[];
}

/**
 * A short, separate run of the edge under `node --cpu-prof`, so the measured runs carry no
 * profiler. Only the samples taken while the load ran are summarized (boot and shutdown are left out).
 */
export async function profileEdge(brokers: string[], prefix: string, token: string, workload: 'call' | 'list', distDir?: string): Promise<{ summary: ProfileSummary; load: ThroughputStats }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'estate-bench-prof-'));
  const spawnedAt = Date.now();
  const edge = await startEdgeChild(brokers, prefix, CATALOG_SIZE, ['--cpu-prof', `--cpu-prof-dir=${dir}`], distDir);
  let window = { fromMs: 0, toMs: 0 };
  let load: ThroughputStats;
  try {
    const sessions = await Promise.all(Array.from({ length: CONCURRENCY }, () => McpHttpSession.open(edge.mcpUrl, token)));
    const op = (s: McpHttpSession) => (workload === 'call' ? s.expect('tools/call', { name: NOOP_TOOL, arguments: NOOP_ARGUMENTS }) : s.expect('tools/list', {}));
    await Promise.all(sessions.map((s) => op(s)));
    const from = Date.now() - spawnedAt;
    load = await concurrentThroughput(sessions.map((s) => () => op(s)), { count: 20_000, maxMs: 5_000 });
    window = { fromMs: from, toMs: Date.now() - spawnedAt };
  } finally {
    await edge.child.stop();
  }
  if (load.errors > 0) process.stderr.write(`[bench] profiled ${workload} run: ${load.errors} errors, first: ${load.firstError}\nedge output:\n${edge.child.output().slice(-1500)}\n`);
  const summary = summarizeProfile(profileIn(dir), window, 20);
  rmSync(dir, { recursive: true, force: true });
  return { summary, load };
}

async function withChildren<T>(children: BenchChild[], run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } finally {
    for (const child of children.reverse()) await child.stop();
  }
}

/** Every edge figure against its baselines: the zero-work upstream called directly and the SDK pass-through. */
export async function runEdgeBench(brokers: string[], logger: Logger, progress: (line: string) => void): Promise<EdgeFigures> {
  const upstream = await startBenchServer('noop-upstream.server.ts', { BENCH_LIST_TOOLS: String(CATALOG_SIZE) });
  const passthrough = await startBenchServer('sdk-passthrough.server.ts', { BENCH_UPSTREAM_URL: upstream.url });
  return withChildren([upstream.child, passthrough.child], async () => {
    const prefix = benchTopicPrefix();
    await feedCatalog(brokers, prefix, benchCatalog(CATALOG_SIZE, upstream.url), logger);
    const token = await issueDevToken(BENCH_SECRET, BENCH_AGENT);
    const edge = await startEdgeChild(brokers, prefix, CATALOG_SIZE);
    const { traffic, edgeMemory, passthroughMemory, idleRssMb, loadedRssMb, burst } = await withChildren([edge.child], async () => {
      const idle = edge.child.rssMb();
      // Sessions first, on fresh processes, so the figure is what sessions cost and not heap left over from load.
      progress(`edge: ${SESSIONS} sessions`);
      const ptMemory = await measureSessionMemory(passthrough.child, passthrough.url, undefined, PASSTHROUGH_SESSIONS);
      const edgeMem = await measureSessionMemory(edge.child, edge.mcpUrl, token, SESSIONS, 180_000);
      progress('edge: tools/list and tools/call');
      const measured = await runTraffic({
        direct: { url: upstream.url, processes: [upstream.child] },
        passthrough: { url: passthrough.url, processes: [passthrough.child, upstream.child] },
        edge: { url: edge.mcpUrl, token, processes: [edge.child, upstream.child] },
      });
      const fmt = (x: { p50: number; p99: number }) => `${round(x.p50)}/${round(x.p99)}`;
      progress(`call p50/p99 ms direct ${fmt(measured.call.direct)} pass-through ${fmt(measured.call.passthrough)} edge ${fmt(measured.call.edge)}; list edge ${fmt(measured.list.edge)}`);
      progress(`edge: ${BURST_SESSIONS} sessions calling at once`);
      const bursts = {
        direct: await measureBurst(upstream.url, undefined, 'noop', [upstream.child]),
        edge: await measureBurst(edge.mcpUrl, token, NOOP_TOOL, [edge.child, upstream.child]),
      };
      progress(`burst p50/p99 ms direct ${fmt(bursts.direct.latency)} edge ${fmt(bursts.edge.latency)}, edge errors ${bursts.edge.errors}`);
      return { traffic: measured, edgeMemory: edgeMem, passthroughMemory: ptMemory, idleRssMb: idle, loadedRssMb: edge.child.rssMb(), burst: bursts };
    });
    progress('edge: cpu profiles');
    const profiles = { call: await profileEdge(brokers, prefix, token, 'call'), list: await profileEdge(brokers, prefix, token, 'list') };
    const tables = [
      ...trafficTables(traffic, CATALOG_SIZE, visibleCount(CATALOG_SIZE)),
      {
        name: `edge: RSS with open sessions (each with its GET stream), fresh child processes: ${SESSIONS} at the edge, ${PASSTHROUGH_SESSIONS} at the pass-through`,
        rows: [
          ...sessionRows([{ path: 'plain SDK pass-through (baseline)', memory: passthroughMemory }, { path: 'estate edge', memory: edgeMemory }]),
          { path: 'estate edge at start, 1,000 tools loaded, no session', 'open sessions': 0, 'failed to open': '-', 'RSS before (MB)': round(idleRssMb, 1), 'RSS with sessions (MB)': '-', 'KB per session': '-', 'per-session cost / baseline': '-' },
          { path: 'estate edge after the list and call load (sessions still registered, streams closed)', 'open sessions': edgeMemory.sessions, 'failed to open': '-', 'RSS before (MB)': '-', 'RSS with sessions (MB)': round(loadedRssMb, 1), 'KB per session': '-', 'per-session cost / baseline': '-' },
        ],
      },
    ];
    tables.push({
      name: `edge: ${BURST_SESSIONS} sessions each calling the zero-work tool at the same moment (3 rounds after a warm-up round)`,
      rows: (['direct', 'edge'] as const).map((path) => ({
        path: path === 'direct' ? 'direct to the upstream (baseline)' : 'estate edge',
        sessions: burst[path].sessions,
        calls: burst[path].latency.samples,
        'p50 (ms)': round(burst[path].latency.p50),
        'p99 (ms)': round(burst[path].latency.p99),
        'server CPU per call (ms)': round(burst[path].cpuMs, 2),
        'client CPU per call (ms)': round(burst[path].clientCpuMsPerCall, 3),
        'client send spread (ms)': round(burst[path].sendSpreadMs, 1),
        errors: burst[path].errors,
      })),
    });
    return { traffic, edgeMemory, passthroughMemory, idleRssMb, loadedRssMb, burst, profiles, tables };
  });
}
