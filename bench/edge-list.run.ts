/**
 * `node -r @swc-node/register bench/edge-list.run.ts [--old <dir>] [--profile]`: filtered
 * tools/list at the edge (1,000 tools, the bench principal's first page) printed as JSON, for a
 * before/after while working on the list path. With `--old`, an older build (a copy of dist/ in
 * `<dir>`, next to a node_modules link) runs beside the current one and every figure is taken
 * from both in alternating rounds, so the machine's load lands on each alike.
 */
import os from 'node:os';
import path from 'node:path';
import { CATALOG_SIZE, profileEdge } from './edge.bench';
import { option, runBench } from './support/bench.cli';
import { type EdgeChild } from './support/edge.launcher';
import { withEdgeRig } from './support/edge.rig';
import { concurrentThroughput, interleavedSamples, latencyStats, round } from './support/load.runner';
import { McpHttpSession } from './support/mcp-http.client';

const CONCURRENCY = 32;

async function main(): Promise<void> {
  const oldDir = option('--old');
  const edges: Record<string, EdgeChild> = {};
  await withEdgeRig(CATALOG_SIZE, async ({ brokers, prefix, token, startEdge }) => {
    edges.new = await startEdge();
    if (oldDir) edges.old = await startEdge([], path.join(oldDir, 'dist'));
    const loadBefore = os.loadavg();
    const pools = Object.fromEntries(await Promise.all(Object.entries(edges).map(async ([name, edge]) =>
      [name, await Promise.all(Array.from({ length: CONCURRENCY }, () => McpHttpSession.open(edge.mcpUrl, token)))] as const)));
    const list = async (s: McpHttpSession) => {
      await s.expect('tools/list', {});
      return { wireMs: s.lastWireMs };
    };
    const singles = Object.fromEntries(Object.keys(edges).map((name) => [name, () => list(pools[name][0])]));
    const samples = await interleavedSamples(singles, 6, { count: 500, maxMs: 2_000, warmUp: 50 });
    const result: Record<string, unknown> = {};
    for (const name of Object.keys(edges)) {
      const workers = pools[name].map((s) => () => list(s));
      await Promise.all(workers.map((w) => w()));
      const cpuBefore = edges[name].child.cpuMs();
      const selfBefore = process.cpuUsage();
      const load = await concurrentThroughput(workers, { count: 20_000, maxMs: 3_000 });
      const self = process.cpuUsage(selfBefore);
      const requests = load.requests + load.errors;
      const latency = latencyStats(samples[name]);
      result[name] = {
        p50: round(latency.p50), p99: round(latency.p99), samples: latency.samples,
        perSecond: Math.round(load.perSecond), errors: load.errors,
        edgeCpuMsPerReq: round((edges[name].child.cpuMs() - cpuBefore) / Math.max(1, requests), 3),
        clientCpuMsPerReq: round((self.user + self.system) / 1000 / Math.max(1, requests), 3),
      };
    }
    result.loadAverage = { before: loadBefore, after: os.loadavg() };
    if (process.argv.includes('--profile')) {
      for (const edge of Object.values(edges)) await edge.child.stop();
      result.profile = (await profileEdge(brokers, prefix, token, 'list')).summary;
    }
    process.stdout.write(`${JSON.stringify(result, null, 1)}\n`);
  });
}

runBench(main);
