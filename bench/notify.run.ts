import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { measureNotify, NOTIFY_SAMPLES } from './notify.bench';
import { startBenchServer } from './support/child-process.launcher';
import { startBenchEstate } from './support/estate.launcher';

/**
 * The notification figures alone, on Kafka (`KAFKA_BROKERS`), without the rest of `npm run bench`:
 * publish → list_changed p50/p99 with the hop medians, then the idle estate's CPU over 30 s (every
 * process of its tree: node and the embedded PostgreSQL's backends, where an idle poll also costs).
 * Build dist/ first (`npm run build`). Run: npm run bench:notify [notify,idle] [samples]
 */
const IDLE_SETTLE_MS = 5_000;
const IDLE_MS = 30_000;
/** USER_HZ: /proc reports CPU time in ticks of 1/100 s. */
const CLOCK_TICKS = 100;

function progress(line: string): void {
  process.stderr.write(`[notify] ${line}\n`);
}

function load(): string {
  return os.loadavg().map((l) => l.toFixed(2)).join(' ');
}

/** user + system ms of `root` and every process below it, read from /proc. */
function treeCpuMs(root: number): number {
  const stats = new Map<number, { parent: number; ticks: number }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1].split(' ');
      stats.set(Number(entry), { parent: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) });
    } catch {
      // The process ended while the tree was read.
    }
  }
  const inTree = (pid: number): boolean => {
    for (let p = pid, depth = 0; p > 1 && depth < 20; p = stats.get(p)?.parent ?? 0, depth += 1) if (p === root) return true;
    return false;
  };
  let ticks = 0;
  for (const [pid, s] of stats) if (inTree(pid)) ticks += s.ticks;
  return (ticks * 1000) / CLOCK_TICKS;
}

async function idleCpu(brokers: string[]): Promise<number> {
  const estate = await startBenchEstate(brokers);
  try {
    await new Promise((resolve) => setTimeout(resolve, IDLE_SETTLE_MS));
    const before = treeCpuMs(estate.child.pid);
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    return ((treeCpuMs(estate.child.pid) - before) / IDLE_MS) * 1000;
  } finally {
    await estate.stop();
  }
}

async function main(): Promise<void> {
  const brokers = (process.env.KAFKA_BROKERS ?? '').split(',').filter(Boolean);
  if (brokers.length === 0) throw new Error('set KAFKA_BROKERS (the notification figures are the ones through Kafka)');
  const what = new Set((process.argv[2] ?? 'notify,idle').split(','));
  if (what.has('notify')) {
    const upstream = await startBenchServer('noop-upstream.server.ts');
    try {
      progress(`publish → list_changed over Kafka; load ${load()}`);
      const figures = await measureNotify(brokers, upstream.url, Number(process.argv[3] ?? NOTIFY_SAMPLES));
      const { latency, publish, missed } = figures;
      process.stdout.write(`publish → list_changed: samples ${latency.samples} missed ${missed} p50 ${latency.p50.toFixed(1)} ms p99 ${latency.p99.toFixed(1)} ms (POST p50 ${publish.p50.toFixed(1)}); estate CPU ${figures.cpuMsPerPublish.toFixed(1)} ms per publish; load ${load()}\n`);
      for (const { hop, stats } of figures.hops) process.stdout.write(`  ${hop}: n=${stats.samples} p50 ${stats.p50.toFixed(1)} p99 ${stats.p99.toFixed(1)}\n`);
    } finally {
      await upstream.child.stop();
    }
  }
  if (what.has('idle')) {
    progress(`idle estate over Kafka for ${IDLE_MS / 1000} s; load ${load()}`);
    const perSecond = await idleCpu(brokers);
    process.stdout.write(`idle estate CPU: ${perSecond.toFixed(1)} ms per second (node + PostgreSQL); load ${load()}\n`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
