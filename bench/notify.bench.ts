import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { issueDevToken } from '@estate/platform';
import { BENCH_AGENT } from './catalog.fixture';
import { hopStats, logTimes, topicTimes, type ProbeTimes } from './notify-hops';
import { startCpuSpan } from './support/cpu.meter';
import { BENCH_SECRET } from './support/edge.launcher';
import { startBenchEstate } from './support/estate.launcher';
import { latencyStats, type LatencyStats } from './support/load.runner';

const ADMIN = { sub: 'bench-admin', scope: 'estate:admin estate:publish', clearance: 'restricted' };
export const NOTIFY_SAMPLES = 40;
const WARM_UP = 3;
const WAIT_MS = 5_000;

export interface NotifyFigures {
  bus: 'kafka' | 'in-process';
  latency: LatencyStats;
  /** How long POST /v1/tools took to answer: the registry's share of `latency`. */
  publish: LatencyStats;
  missed: number;
  /** CPU ms of the estate's processes (node and PostgreSQL's backends) per publish, its notification included: barely moves with the machine's load. */
  cpuMsPerPublish: number;
  /** Where the time went, hop by hop (p50/p99 over the probes): see bench/notify-hops.ts. */
  hops: ReturnType<typeof hopStats>;
}

async function post(url: string, token: string, body: unknown): Promise<void> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body) });
  if (response.status !== 201) throw new Error(`POST ${url} answered ${response.status}: ${await response.text()}`);
}

function probeSpec(i: number) {
  return {
    name: `bench.probe${String(i).padStart(3, '0')}`, version: '1.0.0', title: `Probe ${i}`,
    description: 'A probe tool the benchmark publishes to time the list_changed notification.',
    inputSchema: { type: 'object', properties: { id: { type: 'string' } } },
    sideEffect: 'read', requiredScopes: ['bench:read'], dataClassification: 'internal', tenants: [], owner: 'bench-team',
    upstream: { server: 'bench', tool: 'noop' },
  };
}

/** Adds the relay's and discovery's record times (Kafka only) and the edge's log times to each probe. */
async function withHopTimes(probes: ProbeTimes[], brokers: string[] | undefined, prefix: string, output: string): Promise<ProbeTimes[]> {
  const tools = probes.map((p) => p.tool);
  const records = brokers ? await topicTimes(brokers, prefix, tools) : undefined;
  const applied = logTimes(output, 'registry event applied', tools);
  const received = logTimes(output, 'catalog record received', tools);
  const written = logTimes(output, 'tools/list_changed sent', tools);
  return probes.map((p) => ({
    ...p,
    relaySent: records?.relay.get(p.tool),
    discoveryApplied: applied.get(p.tool),
    republished: records?.catalog.get(p.tool),
    edgeReceived: received.get(p.tool),
    sessionsWritten: written.get(p.tool),
  }));
}

/**
 * Publish (registry REST) → outbox relay → bus → discovery → catalog topic → edge replica →
 * notifications/tools/list_changed on an official SDK client's GET stream. One publish at a time.
 */
export async function measureNotify(brokers: string[] | undefined, upstreamUrl: string, samples = NOTIFY_SAMPLES): Promise<NotifyFigures> {
  // Debug lines time the edge's hops; JSON so the bench can read their timestamps.
  const estate = await startBenchEstate(brokers, [], { LOG_LEVEL: 'debug', LOG_FORMAT: 'json' });
  const client = new Client({ name: 'estate-bench', version: '1.0.0' });
  let arrived: (() => void) | undefined;
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => arrived?.());
  try {
    const admin = await issueDevToken(BENCH_SECRET, ADMIN);
    const agent = await issueDevToken(BENCH_SECRET, BENCH_AGENT);
    await post(`${estate.registry}/v1/servers`, admin, { name: 'bench', url: upstreamUrl, owner: 'bench-team' });
    await client.connect(new StreamableHTTPClientTransport(new URL(estate.edge), { requestInit: { headers: { authorization: `Bearer ${agent}` } } }));
    await new Promise((resolve) => setTimeout(resolve, 500));
    const times: number[] = [];
    const publishTimes: number[] = [];
    const probes: ProbeTimes[] = [];
    let missed = 0;
    const deadline = Date.now() + 45_000 * Math.max(1, samples / NOTIFY_SAMPLES);
    let cpu: ReturnType<typeof startCpuSpan> | undefined;
    for (let i = 0; i < samples + WARM_UP && Date.now() < deadline; i += 1) {
      if (i === WARM_UP) cpu = startCpuSpan({ estate: [estate.child.pid] });
      let clientReceived = 0;
      const received = new Promise<number>((resolve) => {
        arrived = () => {
          clientReceived = Date.now();
          resolve(performance.now());
        };
      });
      const posted = Date.now();
      const start = performance.now();
      await post(`${estate.registry}/v1/tools`, admin, probeSpec(i));
      const answered = performance.now();
      const committed = Date.now();
      const end = await Promise.race([received, new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), WAIT_MS))]);
      if (end === undefined) missed += 1;
      else if (i >= WARM_UP) {
        times.push(end - start);
        publishTimes.push(answered - start);
        probes.push({ tool: probeSpec(i).name, posted, committed, clientReceived });
      }
    }
    const cpuMsPerPublish = ((cpu?.stop().estate ?? 0) * 1000) / Math.max(1, times.length + missed);
    const hops = hopStats(await withHopTimes(probes, brokers, estate.prefix, estate.child.output()));
    return { bus: brokers ? 'kafka' : 'in-process', latency: latencyStats(times), publish: latencyStats(publishTimes), missed, cpuMsPerPublish, hops };
  } finally {
    await client.close().catch(() => undefined);
    await estate.stop();
  }
}
