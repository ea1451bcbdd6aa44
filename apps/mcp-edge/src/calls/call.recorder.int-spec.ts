import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { CallEvent, EventEnvelope } from '@estate/events';
import { createLogger, KafkaEventBus, type Subscription } from '@estate/platform';
import { waitFor } from '../../../../test/support/estate.harness';
import { kafkaBrokers, randomTopicPrefix } from '../../../../test/support/infra';
import { CallRecorder } from './call.recorder';

function completed(principal: string, detail?: string): CallEvent {
  return {
    type: 'ToolCallCompleted', version: 1,
    data: { principal, tool: 'bank.lookup', version: '1.0.0', outcome: 'upstream_error', durationMs: 1, attempts: 1, repaired: 0, ...(detail ? { detail } : {}) },
  };
}

describe('call records reach a topic with the broker default size limit (real Kafka)', () => {
  const logger = createLogger('recorder-test', 'fatal');
  const seen: EventEnvelope[] = [];
  const topic = `${randomTopicPrefix()}estate.calls`;
  let bus: KafkaEventBus;
  let subscription: Subscription;

  beforeAll(async () => {
    bus = new KafkaEventBus({ brokers: kafkaBrokers(), clientId: 'recorder-test', logger });
    await bus.ensureTopics([{ name: topic }]);
    subscription = await bus.subscribe({
      topic, groupId: `recorder-${randomUUID()}`, fromBeginning: true,
      handle: async (m) => void seen.push(JSON.parse(m.value ?? 'null') as EventEnvelope),
    });
  });

  afterAll(async () => {
    await subscription.stop();
    await bus.close();
  });

  it('sends a burst larger than one batch may be, and drops only a record the topic refuses', async () => {
    const spool = { dir: mkdtempSync(path.join(tmpdir(), 'recorder-spool-')), maxBytes: 64 * 1024 * 1024, syncMs: 10 };
    const recorder = new CallRecorder(bus, { topic, spool }, logger);
    // One principal, so one partition: 3,000 records of ~600 bytes are ~1.8 MB, over the ~1 MB a batch may hold.
    const detail = 'd'.repeat(400);
    for (let i = 0; i < 1500; i += 1) recorder.record(completed('burst', `${i} ${detail}`), 's');
    recorder.record(completed('burst', 'x'.repeat(1_200_000)), 's');
    for (let i = 1500; i < 3000; i += 1) recorder.record(completed('burst', `${i} ${detail}`), 's');
    await recorder.flush();
    await waitFor(async () => (seen.length >= 3000 ? true : undefined), '3000 call records', 30000);
    const data = seen.map((e) => (e.data as { detail: string }).detail.split(' ')[0]);
    expect(data).toEqual(Array.from({ length: 3000 }, (_, i) => String(i)));
    await recorder.close();
  });
});
