/**
 * `node -r @swc-node/register bench/edge-latency.compare.ts --old <checkout> [--op call|list] [--count n] [--sessions n] [--new-env NAME=value,...]`:
 * sequential latency of a zero-work tools/call (or the filtered tools/list) straight to the
 * upstream, through the edge built in <checkout>/dist and through this checkout's dist/, measured
 * in short alternating rounds so the noise of a shared machine lands on all three alike. Beside
 * each edge's wire figures: its own time per request ('request' to 'finish', from
 * bench/support/edge-timing.preload.ts), its loop delay and GC pauses, and the CPU it used per
 * request (from /proc). With `--sessions n` each edge first holds n open sessions, as in `npm run bench`.
 */
import os from 'node:os';
import path from 'node:path';
import { NOOP_ARGUMENTS, NOOP_TOOL } from './catalog.fixture';
import { CATALOG_SIZE } from './edge.bench';
import { option, runBench } from './support/bench.cli';
import type { EdgeChild } from './support/edge.launcher';
import { withEdgeRig } from './support/edge.rig';
import { latencyStats, round, sequentialSamples } from './support/load.runner';
import { loadAgent, McpHttpSession } from './support/mcp-http.client';

const PRELOAD = ['-r', '@swc-node/register', '-r', path.join(__dirname, 'support', 'edge-timing.preload.ts')];
const ROUNDS = 20;

interface Subject {
  name: string;
  session: McpHttpSession;
  edge?: EdgeChild;
  samples: number[];
  cpuBefore: number;
}

function opOf(op: string, subject: Subject): () => Promise<unknown> {
  if (op === 'list') return async () => ({ wireMs: (await subject.session.expect('tools/list', {}), subject.session.lastWireMs) });
  const name = subject.edge ? NOOP_TOOL : 'noop';
  return async () => ({ wireMs: (await subject.session.expect('tools/call', { name, arguments: NOOP_ARGUMENTS }), subject.session.lastWireMs) });
}

async function holdSessions(edge: EdgeChild, token: string, count: number): Promise<void> {
  for (let i = 0; i < count; i += 100) {
    await Promise.all(Array.from({ length: Math.min(100, count - i) }, () => McpHttpSession.open(edge.mcpUrl, token)));
  }
}

function edgeTiming(edge: EdgeChild): Record<string, number> {
  const line = edge.child.output().split('\n').reverse().find((l) => l.startsWith('edge-timing '));
  const figures = line ? (JSON.parse(line.slice('edge-timing '.length)) as Record<string, number>) : {};
  return Object.fromEntries(Object.entries(figures).map(([k, v]) => [k, round(v)]));
}

async function main(): Promise<void> {
  const oldDir = option('--old');
  if (!oldDir) throw new Error('--old <checkout with a built dist/> is required');
  const op = option('--op') ?? 'call';
  const count = Number(option('--count') ?? 4000);
  const held = Number(option('--sessions') ?? 0);
  await withEdgeRig(CATALOG_SIZE, async ({ token, startEdge, upstream }) => {
    // `--flags "<node flags>"` adds flags to both edges (a CPU profile, say).
    const flags = [...PRELOAD, ...(option('--flags')?.split(' ').filter(Boolean) ?? [])];
    const oldEdge = await startEdge(flags, path.join(oldDir, 'dist'));
    // `--new-env NAME=value,...`: settings for this checkout's edge only (the same build on both sides isolates a setting).
    for (const pair of option('--new-env')?.split(',') ?? []) process.env[pair.split('=')[0]] = pair.slice(pair.indexOf('=') + 1);
    const newEdge = await startEdge(flags);
    for (const edge of [oldEdge, newEdge]) await holdSessions(edge, token, held);
    const subjects: Subject[] = [
      { name: 'direct', session: await McpHttpSession.open(upstream.url), samples: [], cpuBefore: 0 },
      { name: 'old', session: await McpHttpSession.open(oldEdge.mcpUrl, token), edge: oldEdge, samples: [], cpuBefore: 0 },
      { name: 'new', session: await McpHttpSession.open(newEdge.mcpUrl, token), edge: newEdge, samples: [], cpuBefore: 0 },
    ];
    for (const s of subjects) await sequentialSamples(opOf(op, s), { count: 200, maxMs: 10_000 });
    // What an edge burns with nothing to serve (its consumer, timers), so it is not taken for the cost of a request.
    const idleFrom = [oldEdge.child.cpuMs(), newEdge.child.cpuMs()];
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    const idleCpuMsPerSecond = [oldEdge.child.cpuMs() - idleFrom[0], newEdge.child.cpuMs() - idleFrom[1]].map((ms) => ms / 5);
    const loadBefore = os.loadavg();
    for (const s of subjects) {
      if (s.edge) process.kill(s.edge.child.pid, 'SIGUSR2');
      s.cpuBefore = s.edge?.child.cpuMs() ?? 0;
    }
    for (let r = 0; r < ROUNDS; r += 1) {
      for (const s of subjects) s.samples.push(...(await sequentialSamples(opOf(op, s), { count: count / ROUNDS, maxMs: 5_000, warmUp: 5 })));
    }
    const result: Record<string, unknown> = { op, heldSessions: held, loadBefore, loadAfter: os.loadavg(), idleCpuMsPerSecond: { old: idleCpuMsPerSecond[0], new: idleCpuMsPerSecond[1] } };
    const direct = latencyStats(subjects[0].samples);
    for (const s of subjects) {
      const stats = latencyStats(s.samples);
      const figures: Record<string, unknown> = { samples: stats.samples, p50: round(stats.p50), p99: round(stats.p99), mean: round(stats.mean) };
      if (s.edge) {
        figures.addedP50 = round(stats.p50 - direct.p50);
        figures.addedP99 = round(stats.p99 - direct.p99);
        // Warm-up requests are served too: CPU is divided by everything the edge answered.
        figures.cpuMsPerRequest = round((s.edge.child.cpuMs() - s.cpuBefore) / (stats.samples + ROUNDS * 5), 3);
        process.kill(s.edge.child.pid, 'SIGUSR2');
      }
      result[s.name] = figures;
    }
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    for (const s of subjects) if (s.edge) (result[s.name] as Record<string, unknown>).edge = edgeTiming(s.edge);
    loadAgent.destroy();
    process.stdout.write(`${JSON.stringify(result, null, 1)}\n`);
  });
}

runBench(main);
