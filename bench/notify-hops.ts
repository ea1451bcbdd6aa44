import { Kafka, logLevel } from 'kafkajs';
import { topicName } from '@estate/events';
import { latencyStats, type LatencyStats } from './support/load.runner';

/** When one probe publish passed each point on its way to the client, in ms since the epoch. */
export interface ProbeTimes {
  tool: string;
  /** The bench sent POST /v1/tools. */
  posted: number;
  /** POST /v1/tools answered: the event is committed. */
  committed: number;
  /** The relay's record on the registry topic (the producer's create time: the relay's send). */
  relaySent?: number;
  /** Discovery applied the event in its transaction (debug line `registry event applied`). */
  discoveryApplied?: number;
  /** Discovery's record on the catalog topic (its republish after applying the event). */
  republished?: number;
  /** The edge's replica read the catalog record (debug line `catalog record received`). */
  edgeReceived?: number;
  /** The edge wrote list_changed to the sessions (info line `tools/list_changed sent`). */
  sessionsWritten?: number;
  /** The SDK client's notification handler ran. */
  clientReceived: number;
}

export const HOPS = [
  ['POST → commit answered', 'posted', 'committed'],
  ['commit → relay send', 'committed', 'relaySent'],
  ['relay send → discovery applied (Kafka)', 'relaySent', 'discoveryApplied'],
  ['discovery applied → catalog republish (commit, read, send)', 'discoveryApplied', 'republished'],
  ['catalog republish → edge receive (Kafka)', 'republished', 'edgeReceived'],
  ['edge receive → session write (coalescing)', 'edgeReceived', 'sessionsWritten'],
  ['session write → SDK client', 'sessionsWritten', 'clientReceived'],
] as const;

/** p50/p99 of every hop over the probes that have both ends (a missing log line leaves a hop out). */
export function hopStats(probes: ProbeTimes[]): Array<{ hop: string; stats: LatencyStats }> {
  return HOPS.map(([hop, from, to]) => ({
    hop,
    stats: latencyStats(probes.flatMap((p) => (p[from] !== undefined && p[to] !== undefined ? [p[to]! - p[from]!] : []))),
  }));
}

/** The first time each probe tool's name appears in a JSON log line with this message, from the estate's stderr. */
export function logTimes(output: string, message: string, tools: string[]): Map<string, number> {
  const times = new Map<string, number>();
  for (const line of output.split('\n')) {
    if (!line.includes(message)) continue;
    let entry: { time?: number; tool?: string; tools?: string[] };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      continue;
    }
    if (typeof entry.time !== 'number') continue;
    const named = [...(entry.tools ?? []), ...(entry.tool ? [entry.tool] : [])];
    for (const tool of named) if (tools.includes(tool) && !times.has(tool)) times.set(tool, entry.time);
  }
  return times;
}

/**
 * The create time of the first record naming each probe on the registry and catalog topics, read
 * back from the broker after the run (kafkajs stamps a record when the producer sends it).
 */
export async function topicTimes(brokers: string[], prefix: string, tools: string[]): Promise<{ relay: Map<string, number>; catalog: Map<string, number> }> {
  const kafka = new Kafka({ clientId: 'estate-bench-hops', brokers, logLevel: logLevel.NOTHING });
  const read = async (topic: string): Promise<Map<string, number>> => {
    const admin = kafka.admin();
    await admin.connect();
    const ends = await admin.fetchTopicOffsets(topic).finally(() => admin.disconnect());
    const left = new Map(ends.filter((e) => Number(e.high) > Number(e.low)).map((e) => [e.partition, Number(e.high) - 1]));
    const times = new Map<string, number>();
    if (left.size === 0) return times;
    const consumer = kafka.consumer({ groupId: `estate-bench-hops-${Date.now()}-${Math.random()}`, maxWaitTimeInMs: 100 });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 15_000);
      void consumer.run({
        eachMessage: async ({ partition, message }) => {
          const text = `${message.key?.toString() ?? ''} ${message.value?.toString() ?? ''}`;
          for (const tool of tools) if (!times.has(tool) && (text.includes(`"${tool}"`) || message.key?.toString() === tool)) times.set(tool, Number(message.timestamp));
          if (Number(message.offset) >= (left.get(partition) ?? Infinity)) left.delete(partition);
          if (left.size === 0) {
            clearTimeout(timer);
            resolve();
          }
        },
      });
    });
    await consumer.disconnect();
    return times;
  };
  return { relay: await read(topicName(prefix, 'registryEvents')), catalog: await read(topicName(prefix, 'catalog')) };
}
