/**
 * `npm run bench:edge`: only the edge figures and publish → list_changed over Kafka, printed as
 * JSON (BENCHMARKS.md is left alone), for a quick before/after while working on the edge.
 * `npm run bench:edge -- notify` runs publish → list_changed alone, with its hops.
 */
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { createLogger } from '@estate/platform';
import { runEdgeBench } from './edge.bench';
import { edgeVerdicts } from './edge-targets.rules';
import { measureNotify } from './notify.bench';
import { REPO_ROOT, startBenchServer } from './support/child-process.launcher';
import { acquireKafka } from './support/kafka.lease';
import { loadAgent } from './support/mcp-http.client';

const started = Date.now();

function progress(line: string): void {
  process.stderr.write(`[bench:edge ${((Date.now() - started) / 1000).toFixed(0)} s] ${line}\n`);
}

async function main(): Promise<void> {
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: REPO_ROOT, stdio: 'inherit' });
  const kafka = await acquireKafka();
  const loadAtStart = os.loadavg();
  try {
    const notifyOnly = process.argv.includes('notify');
    const edge = notifyOnly ? undefined : await runEdgeBench(kafka.brokers, createLogger('bench', 'warn'), progress);
    const upstream = await startBenchServer('noop-upstream.server.ts');
    try {
      progress('publish → list_changed over Kafka');
      const notify = await measureNotify(kafka.brokers, upstream.url);
      const report = {
        loadAverage: { start: loadAtStart, end: os.loadavg() },
        verdicts: edge && edgeVerdicts(edge, [notify, notify]),
        tables: edge?.tables,
        notify,
        callProfile: edge?.profiles.call.summary,
      };
      process.stdout.write(`${JSON.stringify(report, null, 1)}\n`);
    } finally {
      await upstream.child.stop();
    }
  } finally {
    loadAgent.destroy();
    await kafka.release();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
