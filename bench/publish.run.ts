/**
 * The publish benchmark alone (`node -r @swc-node/register bench/publish.run.ts`), printed as a
 * table on stdout: quicker than the whole `npm run bench` when working on the publish path.
 * `--write` also puts the figures into their own section of BENCHMARKS.md (bench/publish.section.ts).
 * `--profile` adds a CPU profile of the estate process at 16 clients.
 * Expects a built dist/ (`npm run build`).
 */
import { toMarkdown } from './contracts.bench';
import { profileMarkdown } from './cpu-profile.summary';
import os from 'node:os';
import path from 'node:path';
import { closePublishClient, measurePublish, profilePublish, publishTable } from './publish.bench';
import { publishSection, writePublishSection } from './publish.section';
import { REPO_ROOT } from './support/child-process.launcher';
import { acquireKafka } from './support/kafka.lease';

const COMMAND = 'npm run bench:publish -- --write   (node -r @swc-node/register bench/publish.run.ts --write)';

async function main(): Promise<void> {
  const progress = (line: string) => process.stderr.write(`[publish bench] ${line}\n`);
  const loadAtStart = os.loadavg();
  const kafka = await acquireKafka();
  try {
    const figures = [...(await measurePublish(kafka.brokers, progress)), ...(await measurePublish(undefined, progress))];
    process.stdout.write(`${toMarkdown([publishTable(figures)])}\n`);
    const at16 = figures.filter((f) => f.clients === 16);
    if (process.argv.includes('--write')) {
      writePublishSection(path.join(REPO_ROOT, 'BENCHMARKS.md'), publishSection(figures, loadAtStart, COMMAND));
      progress('wrote its section of BENCHMARKS.md');
    }
    for (const f of at16) process.stdout.write(`16 clients, ${f.bus}: ${Math.round(f.perSecond)}/s (target ≥ 1000), p99 ${f.latency.p99.toFixed(1)} ms (target ≤ 50)\n`);
    if (process.argv.includes('--profile')) {
      progress('profiling 16 clients over Kafka');
      const { summary, figures: profiled } = await profilePublish(kafka.brokers);
      process.stdout.write(`\n${profileMarkdown(`publish, 16 clients, Kafka (${Math.round(profiled.perSecond)}/s while profiled)`, summary)}\n`);
    }
  } finally {
    closePublishClient();
    await kafka.release();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`publish bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
