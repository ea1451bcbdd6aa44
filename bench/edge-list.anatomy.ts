/**
 * `node -r @swc-node/register bench/edge-list.anatomy.ts [--old <dir>] [--count n]`: what the p99 of
 * a sequential filtered tools/list (1,000 tools, the bench principal's first page) is made of, as
 * JSON. The client's time from send to last byte is set beside the edge's own time per request
 * ('request' to 'finish', measured inside the edge by bench/support/edge-timing.preload.ts), the
 * edge's event-loop delay and GC pauses, and the client's own GC pauses that fell inside a slow
 * sample. A slow client sample with a fast edge time was spent outside the edge's handler: in the
 * kernel, waiting for a core, or in the client. Run it on an idle machine; say the load beside it.
 */
import os from 'node:os';
import path from 'node:path';
import { PerformanceObserver, performance } from 'node:perf_hooks';
import { CATALOG_SIZE } from './edge.bench';
import { option, runBench } from './support/bench.cli';
import { withEdgeRig } from './support/edge.rig';
import { latencyStats, round } from './support/load.runner';
import { McpHttpSession } from './support/mcp-http.client';

const PRELOAD = ['-r', '@swc-node/register', '-r', path.join(__dirname, 'support', 'edge-timing.preload.ts')];
/** A sample this many times the median counts as slow. */
const SLOW_FACTOR = 3;

async function anatomy(mcpUrl: string, token: string, pid: number, output: () => string, count: number): Promise<Record<string, unknown>> {
  const session = await McpHttpSession.open(mcpUrl, token);
  for (let i = 0; i < 200; i += 1) await session.expect('tools/list', {});
  const clientGcs: Array<{ from: number; to: number }> = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) clientGcs.push({ from: entry.startTime, to: entry.startTime + entry.duration });
  });
  observer.observe({ entryTypes: ['gc'] });
  process.kill(pid, 'SIGUSR2');
  await new Promise((resolve) => setTimeout(resolve, 100));
  const samples: Array<{ at: number; ms: number }> = [];
  for (let i = 0; i < count; i += 1) {
    const at = performance.now();
    await session.expect('tools/list', {});
    samples.push({ at, ms: session.lastWireMs });
  }
  process.kill(pid, 'SIGUSR2');
  observer.disconnect();
  await new Promise((resolve) => setTimeout(resolve, 300));
  const line = output().split('\n').reverse().find((l) => l.startsWith('edge-timing '));
  const edge = line ? (JSON.parse(line.slice('edge-timing '.length)) as Record<string, number>) : {};
  const wire = latencyStats(samples.map((s) => s.ms));
  const slow = samples.filter((s) => s.ms > SLOW_FACTOR * wire.p50);
  const withClientGc = slow.filter((s) => clientGcs.some((g) => g.from < s.at + s.ms && g.to > s.at)).length;
  return {
    clientWire: { p50: round(wire.p50), p99: round(wire.p99), samples: wire.samples },
    edge: Object.fromEntries(Object.entries(edge).map(([k, v]) => [k, round(v)])),
    slowSamples: slow.length, slowWithClientGc: withClientGc, clientGcPauses: clientGcs.length,
  };
}

async function main(): Promise<void> {
  const oldDir = option('--old');
  const count = Number(option('--count') ?? 3000);
  await withEdgeRig(CATALOG_SIZE, async ({ token, startEdge }) => {
    const result: Record<string, unknown> = { loadBefore: os.loadavg() };
    const builds: Record<string, string | undefined> = { new: undefined, ...(oldDir ? { old: path.join(oldDir, 'dist') } : {}) };
    for (const [name, dist] of Object.entries(builds)) {
      const edge = await startEdge(PRELOAD, dist);
      result[name] = await anatomy(edge.mcpUrl, token, edge.child.pid, edge.child.output, count);
      await edge.child.stop();
    }
    result.loadAfter = os.loadavg();
    process.stdout.write(`${JSON.stringify(result, null, 1)}\n`);
  });
}

runBench(main);
