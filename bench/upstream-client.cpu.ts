/**
 * `node -r @swc-node/register bench/upstream-client.cpu.ts [distDir…] [--rounds N]`: the edge's
 * upstream client alone (UpstreamPool.call: the SDK client, the transport, the HTTP client) against the zero-work upstream, 32 calls in flight, in this process: CPU per call of
 * each build (default `dist`), alternating in rounds. Leaves out everything else the edge does, so
 * a change to the upstream path shows without the noise of the whole edge.
 */
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '@estate/platform';
import type { CatalogUpstream } from '@estate/events';
import { option, runBench } from './support/bench.cli';
import { startBenchServer } from './support/child-process.launcher';
import { percentile, round } from './support/load.runner';

const IN_FLIGHT = 32;
const CALLS = 20_000;

interface PoolLike {
  call(upstream: CatalogUpstream, tool: string, args: Record<string, unknown>, timeoutMs: number): Promise<unknown>;
  ready(upstream: CatalogUpstream): Promise<void>;
  close(): Promise<void>;
}

async function measure(dist: string, upstream: CatalogUpstream): Promise<{ cpuUs: number; perSecond: number }> {
  // The build under test, not the sources this bench runs from.
  const { UpstreamPool } = (await import(path.resolve(dist, 'apps/mcp-edge/src/upstream/upstream.pool.js'))) as { UpstreamPool: new (logger: unknown) => PoolLike };
  const pool = new UpstreamPool(createLogger('bench', 'error'));
  try {
    await pool.ready(upstream);
    const run = async (count: number) => {
      let next = 0;
      await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
        while (next++ < count) await pool.call(upstream, 'noop', { reference: 'x' }, 10_000);
      }));
    };
    await run(2_000);
    const cpu = process.cpuUsage();
    const started = performance.now();
    await run(CALLS);
    const used = process.cpuUsage(cpu);
    return { cpuUs: (used.user + used.system) / CALLS, perSecond: CALLS / ((performance.now() - started) / 1000) };
  } finally {
    await pool.close();
  }
}

async function main(): Promise<void> {
  const rounds = Number(option('--rounds') ?? 5);
  const dists = process.argv.slice(2).filter((a, i, all) => !a.startsWith('--') && all[i - 1] !== '--rounds');
  if (dists.length === 0) dists.push('dist');
  const server = await startBenchServer('noop-upstream.server.ts');
  const upstream: CatalogUpstream = { server: 'bench', transport: 'streamable-http', url: server.url, allowSampling: false, allowElicitation: false };
  const seen: Record<string, number[]> = Object.fromEntries(dists.map((d) => [d, []]));
  try {
    for (let r = 0; r < rounds; r += 1) {
      for (const dist of r % 2 === 0 ? dists : [...dists].reverse()) {
        const m = await measure(dist, upstream);
        seen[dist].push(m.cpuUs);
        process.stdout.write(`${JSON.stringify({ round: r, subject: dist, cpuUsPerCall: round(m.cpuUs, 1), perSecond: Math.round(m.perSecond), load: os.loadavg()[0] })}\n`);
      }
    }
    for (const dist of dists) {
      const sorted = [...seen[dist]].sort((a, b) => a - b);
      process.stdout.write(`${JSON.stringify({ subject: dist, medianCpuUsPerCall: round(percentile(sorted, 50), 1), minCpuUsPerCall: round(sorted[0], 1), rounds })}\n`);
    }
  } finally {
    await server.child.stop();
  }
}

runBench(main);
