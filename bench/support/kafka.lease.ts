import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from './child-process.launcher';

const KAFKA_SH = path.join(REPO_ROOT, 'infra', 'kafka', 'kafka.sh');

/** Brokers for the run: KAFKA_BROKERS when set, else a lease on the checkout's local broker. */
export async function acquireKafka(): Promise<{ brokers: string[]; source: string; release(): Promise<void> }> {
  const given = process.env.KAFKA_BROKERS?.split(',').map((b) => b.trim()).filter(Boolean) ?? [];
  if (given.length > 0) return { brokers: given, source: 'KAFKA_BROKERS', release: async () => undefined };
  const { stdout } = await promisify(execFile)(KAFKA_SH, ['acquire', String(process.pid)], { cwd: REPO_ROOT, timeout: 180_000 });
  const broker = stdout.trim().split('\n').pop() ?? '';
  if (!/^[\w.-]+:\d+$/.test(broker)) throw new Error(`kafka.sh acquire printed no broker address: ${stdout}`);
  return {
    brokers: [broker],
    source: 'infra/kafka/kafka.sh (local KRaft broker)',
    release: async () => void (await promisify(execFile)(KAFKA_SH, ['release', String(process.pid)], { cwd: REPO_ROOT })),
  };
}
