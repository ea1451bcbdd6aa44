/**
 * One bus and chosen client counts of the publish benchmark, for old-code-vs-new-code runs back to
 * back on a shared machine: `node -r @swc-node/register bench/publish.quick.ts [--kafka]
 * [--clients 1,16,64] [--profile [--profile-clients N] [--keep]]`. Prints the table (and, with --profile, where the estate's
 * process spends a publish at 16 clients, by owner); writes nothing. Expects a built dist/.
 */
import os from 'node:os';
import { toMarkdown } from './contracts.bench';
import { profileMarkdown } from './cpu-profile.summary';
import { closePublishClient, measurePublish, profilePublish, publishTable } from './publish.bench';
import { option, runBench } from './support/bench.cli';
import { acquireKafka } from './support/kafka.lease';

async function main(): Promise<void> {
  const progress = (line: string) => process.stderr.write(`[publish quick] ${line}\n`);
  const clients = (option('--clients') ?? '16').split(',').map(Number);
  const kafka = process.argv.includes('--kafka') ? await acquireKafka() : undefined;
  try {
    process.stdout.write(`load average at start: ${os.loadavg().map((l) => l.toFixed(2)).join(' / ')}\n`);
    if (clients.some((c) => c > 0)) {
      const figures = await measurePublish(kafka?.brokers, progress, clients);
      process.stdout.write(`${toMarkdown([publishTable(figures)])}\n`);
    }
    if (process.argv.includes('--profile')) {
      const profiled = Number(option('--profile-clients') ?? '16');
      const { summary, figures } = await profilePublish(kafka?.brokers, process.argv.includes('--keep'), profiled);
      process.stdout.write(`\n${profileMarkdown(`publish, ${profiled} clients, ${kafka ? 'Kafka' : 'in-process bus'} (${Math.round(figures.perSecond)}/s while profiled)`, summary)}\n`);
    }
    process.stdout.write(`load average at end: ${os.loadavg().map((l) => l.toFixed(2)).join(' / ')}\n`);
  } finally {
    closePublishClient();
    await kafka?.release();
  }
}

runBench(main);
