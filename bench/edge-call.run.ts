/**
 * `node -r @swc-node/register bench/edge-call.run.ts [distDir…] [--prof]`: only the session
 * tools/call figure (edge CPU per call, 32-way, against the zero-work upstream called directly),
 * for before/after work on the edge's hot path. Each dist directory (default `dist`, built
 * beforehand) runs its own edge on the same upstream, back to back in rounds, so a second build
 * of the old code (e.g. `dist-base`) is compared under the same machine load. `--prof` adds a
 * CPU profile of each edge (self time by owner and frame), taken in a separate run. `--rounds N`
 * (default 3) sets the rounds; the order of the builds alternates from round to round, and a last
 * line per build gives the median of its rounds, which a busy moment of a shared machine moves
 * least.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { NOOP_ARGUMENTS, NOOP_TOOL } from './catalog.fixture';
import { profileIn, summarizeProfile } from './cpu-profile.summary';
import { option, runBench } from './support/bench.cli';
import { type BenchChild } from './support/child-process.launcher';
import { startEdgeChild } from './support/edge.launcher';
import { withEdgeRig } from './support/edge.rig';
import { concurrentThroughput, percentile, round } from './support/load.runner';
import { McpHttpSession } from './support/mcp-http.client';

const CONCURRENCY = 32;
const CALLS = 12_000;
const ROUNDS = 3;

/** CPU per call of each of `processes` (ms), over one bounded 32-way run after a warm-up. */
async function cpuPerCall(url: string, token: string | undefined, tool: string, processes: BenchChild[]): Promise<{ cpuMs: number[]; perSecond: number; errors: number }> {
  const sessions = await Promise.all(Array.from({ length: CONCURRENCY }, () => McpHttpSession.open(url, token)));
  const workers = sessions.map((s) => () => s.expect('tools/call', { name: tool, arguments: NOOP_ARGUMENTS }));
  await concurrentThroughput(workers, { count: 2_000, maxMs: 2_000 });
  const before = processes.map((p) => p.cpuMs());
  const load = await concurrentThroughput(workers, { count: CALLS, maxMs: 6_000 });
  const calls = Math.max(1, load.requests + load.errors);
  return { cpuMs: processes.map((p, i) => (p.cpuMs() - before[i]) / calls), perSecond: load.perSecond, errors: load.errors };
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

function median(values: number[]): number {
  return percentile([...values].sort((a, b) => a - b), 50);
}

/** Per build: the median of its rounds' figures, with the load they ran under. */
function medians(rows: Record<string, unknown>[], dists: string[]): Record<string, unknown>[] {
  return dists.map((dist) => {
    const mine = rows.filter((r) => r.subject === dist);
    const of = (key: string) => round(median(mine.map((r) => r[key] as number)));
    return { subject: dist, medianOf: mine.length, edgeCpuMsPerCall: of('edgeCpuMsPerCall'), pathCpuMsPerCall: of('pathCpuMsPerCall'), perSecond: Math.round(median(mine.map((r) => r.perSecond as number))), load: of('load') };
  });
}

async function main(): Promise<void> {
  const rounding = option('--rounds');
  const dists = process.argv.slice(2).filter((a, i, all) => !a.startsWith('--') && all[i - 1] !== '--rounds');
  if (dists.length === 0) dists.push('dist');
  await withEdgeRig(1, async ({ brokers, prefix, upstream, token }) => {
    const rows: Record<string, unknown>[] = [];
    const rounds = process.argv.includes('--prof-only') ? 0 : Number(rounding ?? ROUNDS);
    for (let round_ = 0; round_ < rounds; round_ += 1) {
      const direct = await cpuPerCall(upstream.url, undefined, 'noop', [upstream.child]);
      rows.push({ round: round_, subject: 'direct', cpuMsPerCall: round(direct.cpuMs[0]), perSecond: Math.round(direct.perSecond), errors: direct.errors, load: os.loadavg()[0] });
      for (const dist of round_ % 2 === 0 ? dists : [...dists].reverse()) {
        const edge = await startEdgeChild(brokers, prefix, 1, [], dist);
        try {
          // The first run after a start still pays for warming up (JIT, the bus's first batches): only the second counts.
          const first = await cpuPerCall(edge.mcpUrl, token, NOOP_TOOL, [edge.child, upstream.child]);
          const m = await cpuPerCall(edge.mcpUrl, token, NOOP_TOOL, [edge.child, upstream.child]);
          rows.push({
            round: round_, subject: dist, edgeCpuMsPerCall: round(m.cpuMs[0]), pathCpuMsPerCall: round(m.cpuMs[0] + m.cpuMs[1]), perSecond: Math.round(m.perSecond),
            errors: first.errors + m.errors, load: os.loadavg()[0],
          });
        } finally {
          await edge.child.stop();
        }
      }
    }
    const summary = rounds > 0 ? medians(rows, dists) : [];
    process.stdout.write(`${[...rows, ...summary].map((r) => JSON.stringify(r)).join('\n')}\n`);
    if (process.argv.includes('--prof')) {
      for (const dist of dists) process.stdout.write(`${dist} profile:\n${JSON.stringify(await profile(brokers, prefix, token, dist), null, 1)}\n`);
    }
  });
}

runBench(main);
