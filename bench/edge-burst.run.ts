/**
 * `node -r @swc-node/register bench/edge-burst.run.ts [--old <dir>] [--repeat n] [--profile]`: the burst
 * figure alone (1,000 sessions calling the zero-work tool at once), direct to the upstream and
 * through the edge, printed as JSON. With `--old`, an older build (a copy of dist/ in `<dir>`,
 * next to a node_modules link) is measured in the same alternation, so load lands on each alike.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { NOOP_TOOL } from './catalog.fixture';
import { CATALOG_SIZE } from './edge.bench';
import { measureBurst, type BurstFigures } from './edge-burst.bench';
import { profileIn, summarizeProfile } from './cpu-profile.summary';
import { option, runBench } from './support/bench.cli';
import { type EdgeChild } from './support/edge.launcher';
import { withEdgeRig } from './support/edge.rig';
import { round } from './support/load.runner';

function brief(f: BurstFigures): Record<string, number | string | undefined> {
  return {
    p50: round(f.latency.p50), p99: round(f.latency.p99), max: round(f.max), errors: f.errors, firstError: f.firstError,
    serverCpuMsPerCall: round(f.cpuMs, 3), clientCpuMsPerCall: round(f.clientCpuMsPerCall, 3), sendSpreadMs: round(f.sendSpreadMs),
    load1: round(os.loadavg()[0], 2),
  };
}

async function main(): Promise<void> {
  const oldDir = option('--old');
  const repeat = Number(option('--repeat') ?? 1);
  const edges: Record<string, EdgeChild> = {};
  await withEdgeRig(CATALOG_SIZE, async ({ upstream, token, startEdge }) => {
    const profileDir = process.argv.includes('--profile') ? mkdtempSync(path.join(os.tmpdir(), 'estate-burst-prof-')) : undefined;
    const spawnedAt = Date.now();
    edges.new = await startEdge(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []);
    if (oldDir) edges.old = await startEdge([], path.join(oldDir, 'dist'));
    let window = { fromMs: 0, toMs: 0 };
    const runs: Array<Record<string, unknown>> = [];
    for (let i = 0; i < repeat; i += 1) {
      const run: Record<string, unknown> = { direct: brief(await measureBurst(upstream.url, undefined, 'noop', [upstream.child])) };
      for (const [name, edge] of Object.entries(edges)) {
        const figures = await measureBurst(edge.mcpUrl, token, NOOP_TOOL, [edge.child, upstream.child]);
        if (name === 'new') window = { fromMs: figures.measuredFrom - spawnedAt, toMs: figures.measuredTo - spawnedAt };
        run[name] = brief(figures);
      }
      runs.push(run);
      process.stderr.write(`${JSON.stringify(run)}\n`);
    }
    if (profileDir) {
      await edges.new.child.stop();
      const summary = summarizeProfile(profileIn(profileDir), window, 25);
      process.stdout.write(`${JSON.stringify({ busyMs: summary.busyMs, idleMs: summary.idleMs, owners: summary.owners, frames: summary.frames.map((f) => `${f.selfMs} ${f.frame}`) }, null, 1)}\n`);
    }
    process.stdout.write(`${JSON.stringify(runs, null, 1)}\n`);
  });
}

runBench(main);
