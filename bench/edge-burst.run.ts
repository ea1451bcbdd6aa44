/**
 * `node -r @swc-node/register bench/edge-burst.run.ts [--old <dir>] [--repeat n] [--profile]`: the burst
 * figure alone (1,000 sessions calling the zero-work tool at once), direct to the upstream and
 * through the edge, printed as JSON. With `--old`, an older build (a copy of dist/ in `<dir>`,
 * next to a node_modules link) is measured in the same alternation, so load lands on each alike.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLogger, issueDevToken } from '@estate/platform';
import { BENCH_AGENT, benchCatalog, NOOP_TOOL } from './catalog.fixture';
import { CATALOG_SIZE } from './edge.bench';
import { measureBurst, type BurstFigures } from './edge-burst.bench';
import { profileIn, summarizeProfile } from './cpu-profile.summary';
import { startBenchServer } from './support/child-process.launcher';
import { BENCH_SECRET, benchTopicPrefix, feedCatalog, startEdgeChild, type EdgeChild } from './support/edge.launcher';
import { acquireKafka } from './support/kafka.lease';
import { round } from './support/load.runner';

function option(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at < 0 ? undefined : process.argv[at + 1];
}

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
  const kafka = await acquireKafka();
  const upstream = await startBenchServer('noop-upstream.server.ts', { BENCH_LIST_TOOLS: String(CATALOG_SIZE) });
  const edges: Record<string, EdgeChild> = {};
  try {
    const prefix = benchTopicPrefix();
    await feedCatalog(kafka.brokers, prefix, benchCatalog(CATALOG_SIZE, upstream.url), createLogger('bench', 'warn'));
    const token = await issueDevToken(BENCH_SECRET, BENCH_AGENT);
    const profileDir = process.argv.includes('--profile') ? mkdtempSync(path.join(os.tmpdir(), 'estate-burst-prof-')) : undefined;
    const spawnedAt = Date.now();
    edges.new = await startEdgeChild(kafka.brokers, prefix, CATALOG_SIZE, profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []);
    if (oldDir) edges.old = await startEdgeChild(kafka.brokers, prefix, CATALOG_SIZE, [], path.join(oldDir, 'dist'));
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
  } finally {
    for (const edge of Object.values(edges)) await edge.child.stop();
    await upstream.child.stop();
    await kafka.release();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
