/**
 * `node -r @swc-node/register bench/call-records.cpu.ts`: the CPU the edge's call records cost
 * apart from the calls, in this process alone (so other load on the machine barely moves it):
 * publishing ToolCallCompleted-sized records to Kafka in batches of the sizes the recorder's flush
 * window makes (call.recorder.ts), and writing the spool's drained position (spool.slot.ts).
 * Needs the broker of KAFKA_BROKERS (127.0.0.1:9092 unless set).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLogger, KafkaEventBus, type OutgoingMessage } from '@estate/platform';
import { writePosition } from '../apps/mcp-edge/src/calls/spool.slot';

const RECORDS = 6_000;
/** Records per send at 1,000 calls a second: a 20 ms window, then a 100 ms one, twice over. */
const BATCH_SIZES = [20, 100, 20, 100];

function record(): OutgoingMessage {
  const data = { principal: 'bench-agent', tenant: 'retail', sessionId: randomUUID(), tool: 'bench.noop', version: '1.0.0', outcome: 'ok', durationMs: 1.234, attempts: 1, repaired: 0 };
  const envelope = { id: randomUUID(), type: 'ToolCallCompleted', version: 1, stream: 'principal:bench-agent', position: 0, occurredAt: new Date().toISOString(), actor: 'bench-agent', correlationId: randomUUID(), data };
  return { key: 'bench-agent', value: JSON.stringify(envelope), headers: { 'estate-type': 'ToolCallCompleted' } };
}

function cpuMicros(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return used.user + used.system;
}

function positionCost(): void {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'estate-bench-position-'));
  try {
    for (let i = 0; i < 50; i += 1) writePosition(dir, { segment: 0, offset: i });
    const count = 500;
    const cpu = process.cpuUsage();
    const wall = performance.now();
    for (let i = 0; i < count; i += 1) writePosition(dir, { segment: 0, offset: i * 1000 });
    process.stdout.write(`${JSON.stringify({ what: 'drained position write', cpuUsEach: Math.round(cpuMicros(cpu) / count), wallUsEach: Math.round(((performance.now() - wall) * 1000) / count) })}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function publishCost(brokers: string[]): Promise<void> {
  const bus = new KafkaEventBus({ brokers, clientId: 'estate-bench-records', logger: createLogger('bench', 'warn') });
  try {
    const topic = `bench${randomBytes(5).toString('hex')}.estate.calls`;
    await bus.ensureTopics([{ name: topic }]);
    for (const size of BATCH_SIZES) {
      for (let i = 0; i < 20; i += 1) await bus.publish(topic, Array.from({ length: size }, record));
      const batches = Array.from({ length: Math.round(RECORDS / size) }, () => Array.from({ length: size }, record));
      const cpu = process.cpuUsage();
      for (const batch of batches) await bus.publish(topic, batch);
      const used = cpuMicros(cpu);
      process.stdout.write(`${JSON.stringify({ what: 'publish', recordsPerSend: size, cpuUsPerRecord: Math.round(used / (batches.length * size)), cpuUsPerSend: Math.round(used / batches.length), load: os.loadavg()[0] })}\n`);
    }
  } finally {
    await bus.close();
  }
}

async function main(): Promise<void> {
  positionCost();
  // Read here as in every bench: only the brokers to use, never a setting of the product.
  await publishCost((process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(','));
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
