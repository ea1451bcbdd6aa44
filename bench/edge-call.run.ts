/**
 * `node -r @swc-node/register bench/edge-call.run.ts [distDir…] [--prof]`: only the session
 * tools/call figure (edge CPU per call, 32-way, against the zero-work upstream called directly),
 * for before/after work on the edge's hot path. Each dist directory (default `dist`, built
 * beforehand) runs its own edge on the same upstream, back to back in rounds, so a second build
 * of the old code (e.g. `dist-base`) is compared under the same machine load. `--prof` adds a
 * CPU profile of each edge (self time by owner and frame), taken in a separate run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { NOOP_ARGUMENTS, NOOP_TOOL } from './catalog.fixture';
import { profileIn, summarizeProfile } from './cpu-profile.summary';
import { runBench } from './support/bench.cli';
import { type BenchChild } from './support/child-process.launcher';
import { startEdgeChild } from './support/edge.launcher';
import { withEdgeRig } from './support/edge.rig';
import { concurrentThroughput, round } from './support/load.runner';
import { McpHttpSession } from './support/mcp-http.client';

const CONCURRENCY = 32;
const CALLS = 12_000;
const ROUNDS = 3;

async function cpuPerCall(url: string, token: string | undefined, tool: string, processes: BenchChild[]): Promise<{ cpuMs: number; perSecond: number; errors: number }> {
  const sessions = await Promise.all(Array.from({ length: CONCURRENCY }, () => McpHttpSession.open(url, token)));
  const workers = sessions.map((s) => () => s.expect('tools/call', { name: tool, arguments: NOOP_ARGUMENTS }));
  await concurrentThroughput(workers, { count: 2_000, maxMs: 2_000 });
  const cpuNow = () => processes.reduce((sum, p) => sum + p.cpuMs(), 0);
  const before = cpuNow();
  const load = await concurrentThroughput(workers, { count: CALLS, maxMs: 6_000 });
  return { cpuMs: (cpuNow() - before) / Math.max(1, load.requests + load.errors), perSecond: load.perSecond, errors: load.errors };
}

async function profile(brokers: string[], prefix: string, token: string, distDir: string): Promise<unknown> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'estate-bench-prof-'));
  const spawnedAt = Date.now();
  const edge = await startEdgeChild(brokers, prefix, 1, ['--cpu-prof', `--cpu-prof-dir=${dir}`], distDir);
  let window = { fromMs: 0, toMs: 0 };
  try {
    const sessions = await Promise.all(Array.from({ length: CONCURRENCY }, () => McpHttpSession.open(edge.mcpUrl, token)));
    const workers = sessions.map((s) => () => s.expect('tools/call', { name: NOOP_TOOL, arguments: NOOP_ARGUMENTS }));
    await concurrentThroughput(workers, { count: 1_000, maxMs: 2_000 });
    const from = Date.now() - spawnedAt;
    await concurrentThroughput(workers, { count: CALLS, maxMs: 5_000 });
    window = { fromMs: from, toMs: Date.now() - spawnedAt };
  } finally {
    await edge.child.stop();
  }
  const summary = summarizeProfile(profileIn(dir), window, 25);
  if (process.argv.includes('--keep')) process.stderr.write(`profile kept in ${dir}\n`);
  else rmSync(dir, { recursive: true, force: true });
  return summary;
}

async function main(): Promise<void> {
  const dists = process.argv.slice(2).filter((a) => !a.startsWith('--'));
  if (dists.length === 0) dists.push('dist');
  await withEdgeRig(1, async ({ brokers, prefix, upstream, token }) => {
    const rows: Record<string, unknown>[] = [];
    const rounds = process.argv.includes('--prof-only') ? 0 : ROUNDS;
    for (let round_ = 0; round_ < rounds; round_ += 1) {
      const direct = await cpuPerCall(upstream.url, undefined, 'noop', [upstream.child]);
      rows.push({ round: round_, subject: 'direct', cpuMsPerCall: round(direct.cpuMs), perSecond: Math.round(direct.perSecond), errors: direct.errors, load: os.loadavg()[0] });
      for (const dist of dists) {
        const edge = await startEdgeChild(brokers, prefix, 1, [], dist);
        try {
          const m = await cpuPerCall(edge.mcpUrl, token, NOOP_TOOL, [edge.child]);
          const both = await cpuPerCall(edge.mcpUrl, token, NOOP_TOOL, [edge.child, upstream.child]);
          rows.push({ round: round_, subject: dist, edgeCpuMsPerCall: round(m.cpuMs), pathCpuMsPerCall: round(both.cpuMs), perSecond: Math.round(m.perSecond), errors: m.errors + both.errors, load: os.loadavg()[0] });
        } finally {
          await edge.child.stop();
        }
      }
    }
    process.stdout.write(`${rows.map((r) => JSON.stringify(r)).join('\n')}\n`);
    if (process.argv.includes('--prof')) {
      for (const dist of dists) process.stdout.write(`${dist} profile:\n${JSON.stringify(await profile(brokers, prefix, token, dist), null, 1)}\n`);
    }
  });
}

runBench(main);
