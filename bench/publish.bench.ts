import { mkdtempSync, rmSync } from 'node:fs';
import * as http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { issueDevToken } from '@estate/platform';
import type { BenchTable } from './contracts.bench';
import { profilesIn, summarizeProfile, type ProfileSummary } from './cpu-profile.summary';
import { cpuBetween, listenerPid, snapshot, type CpuRole, type CpuSnapshot } from './publish.cpu';
import { BENCH_SECRET } from './support/edge.launcher';
import { startBenchEstate } from './support/estate.launcher';
import { latencyStats, round, type LatencyStats } from './support/load.runner';

export const PUBLISH_CONCURRENCY = [1, 16, 64] as const;
const PUBLISHER = { sub: 'bench-publisher', scope: 'estate:admin estate:publish', clearance: 'restricted' };
const RUN_MS = 8_000;
const WARM_UP_MS = 1_500;

export interface PublishFigures {
  bus: 'kafka' | 'in-process';
  clients: number;
  published: number;
  perSecond: number;
  errors: number;
  firstError?: string;
  latency: LatencyStats;
  /** CPU ms per publish completed in the measured window, by process role (user + system from /proc). */
  cpuPerPublish: Record<CpuRole, number>;
  /** 1-minute load average at the end of the run: the machine is shared. */
  load: number;
  /** CPU ms per publish of the load generator itself (this process): it shares the cores with the estate. */
  clientCpuPerPublish?: number;
  /** CPU ms per second the estate's processes spend with nothing published (polls, timers): what a slow rate pays per publish. */
  idleCpuPerSecond?: number;
}

const IDLE_MS = 3_000;

// Its own agent: one keep-alive socket per client, so connection setup never lands in a figure.
const agent = new http.Agent({ keepAlive: true, maxSockets: 128 });

function post(url: URL, token: string, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname, port: url.port, path: url.pathname, method: 'POST', agent,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Version n of a client's own tool: each publish rewords the description, a minor change over the one before. */
function spec(tool: string, n: number): string {
  return JSON.stringify({
    name: tool, version: `1.${n}.0`, title: `Bench tool ${tool}`,
    description: `A tool the publish benchmark ships again and again; this is revision ${n}.`,
    inputSchema: { type: 'object', properties: { id: { type: 'string', maxLength: 64 }, amount: { type: 'integer', minimum: 0 } }, required: ['id'] },
    sideEffect: 'read', requiredScopes: ['bench:read'], dataClassification: 'internal', tenants: [], owner: 'bench-team',
    upstream: { server: 'bench', tool: 'noop' },
  });
}

/** `clients` loops, each publishing successive versions of its own tool for a fixed time; latencies after a warm-up. */
async function publishLoad(
  registry: string, token: string, clients: number, run: string, sample: () => CpuSnapshot,
): Promise<Omit<PublishFigures, 'bus'>> {
  const url = new URL('/v1/tools', registry);
  const times: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  let completed = 0;
  const begin = performance.now();
  const measureFrom = begin + WARM_UP_MS;
  const end = measureFrom + RUN_MS;
  let before: CpuSnapshot = new Map();
  let after: CpuSnapshot = new Map();
  let clientFrom: NodeJS.CpuUsage | undefined;
  let client: NodeJS.CpuUsage | undefined;
  const timers = [
    setTimeout(() => { before = sample(); clientFrom = process.cpuUsage(); }, WARM_UP_MS),
    setTimeout(() => { after = sample(); client = process.cpuUsage(clientFrom); }, WARM_UP_MS + RUN_MS),
  ];
  await Promise.all(Array.from({ length: clients }, async (_, c) => {
    const tool = `bench.${run}c${clients}w${c}`;
    for (let n = 0; performance.now() < end; n += 1) {
      const start = performance.now();
      const answer = await post(url, token, spec(tool, n));
      const done = performance.now();
      if (answer.status === 201 && done >= measureFrom && done <= end) completed += 1;
      if (answer.status !== 201) {
        errors += 1;
        firstError ??= `${answer.status} ${answer.text.slice(0, 200)}`;
      } else if (start >= measureFrom && done <= end) times.push(done - start);
    }
  }));
  for (const timer of timers) clearTimeout(timer);
  if (after.size === 0) after = sample();
  client ??= process.cpuUsage(clientFrom);
  const spent = cpuBetween(before, after);
  const cpuPerPublish = Object.fromEntries(Object.entries(spent).map(([role, ms]) => [role, ms / Math.max(1, completed)])) as Record<CpuRole, number>;
  return {
    clients, published: times.length, perSecond: completed / (RUN_MS / 1000), errors, firstError, latency: latencyStats(times), cpuPerPublish, load: os.loadavg()[0],
    clientCpuPerPublish: (client.user + client.system) / 1000 / Math.max(1, completed),
  };
}

/** The broker's process when it runs on this machine (its port listened on here); its CPU counts toward a publish. */
function localBroker(brokers: string[] | undefined): number | undefined {
  const [host, port] = brokers?.[0]?.split(':') ?? [];
  if (!port || !['127.0.0.1', 'localhost'].includes(host)) return undefined;
  return listenerPid(Number(port));
}

/**
 * Publish throughput from outside: POST /v1/tools on the embedded estate (npm start's entry), every
 * client publishing successive patch versions of its own tool, so each publish loads a stream that
 * grows and classifies the change against the version before.
 */
export async function measurePublish(
  brokers: string[] | undefined, progress: (line: string) => void = () => undefined, concurrency: readonly number[] = PUBLISH_CONCURRENCY,
): Promise<PublishFigures[]> {
  const estate = await startBenchEstate(brokers);
  const bus = brokers ? 'kafka' : 'in-process';
  try {
    const token = await benchPublisher(estate.registry);
    const broker = localBroker(brokers);
    const sample = () => snapshot(estate.child.pid, broker);
    const quiet = snapshot(estate.child.pid);
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    const idle = Object.values(cpuBetween(quiet, snapshot(estate.child.pid))).reduce((a, b) => a + b, 0) / (IDLE_MS / 1000);
    const figures: PublishFigures[] = [];
    for (const clients of concurrency) {
      progress(`publish throughput, ${clients} client(s), ${bus}`);
      const figure = await publishLoad(estate.registry, token, clients, `r${Date.now().toString(36)}`, sample);
      if (figure.firstError) progress(`  ${figure.errors} refused, the first: ${figure.firstError}`);
      figures.push({ bus, ...figure, idleCpuPerSecond: idle });
    }
    return figures;
  } finally {
    await estate.stop();
  }
}

/** A publisher's token, and the server every bench tool names registered. */
async function benchPublisher(registry: string): Promise<string> {
  const token = await issueDevToken(BENCH_SECRET, PUBLISHER);
  const server = await post(new URL('/v1/servers', registry), token, JSON.stringify({ name: 'bench', url: 'http://127.0.0.1:9/mcp', owner: 'bench-team' }));
  if (server.status !== 201) throw new Error(`registering the bench server answered ${server.status}: ${server.text}`);
  return token;
}

/**
 * A separate run of the embedded estate under `node --cpu-prof` at 16 clients, so the measured
 * runs carry no profiler: where the estate's process spends a publish (PostgreSQL runs apart).
 */
export async function profilePublish(brokers: string[] | undefined, keep = false, clients = 16): Promise<{ summary: ProfileSummary; figures: Omit<PublishFigures, 'bus'> }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'estate-bench-prof-'));
  const spawnedAt = Date.now();
  const estate = await startBenchEstate(brokers, ['--cpu-prof', `--cpu-prof-dir=${dir}`]);
  let window = { fromMs: 0, toMs: 0 };
  let figures: Omit<PublishFigures, 'bus'>;
  try {
    const token = await benchPublisher(estate.registry);
    const from = Date.now() - spawnedAt + WARM_UP_MS;
    figures = await publishLoad(estate.registry, token, clients, `p${Date.now().toString(36)}`, () => snapshot(estate.child.pid));
    window = { fromMs: from, toMs: Date.now() - spawnedAt };
  } finally {
    await estate.stop();
  }
  const summary = summarizeProfile(profilesIn(dir), window, 25);
  if (keep) process.stderr.write(`CPU profile kept in ${dir}\n`);
  else rmSync(dir, { recursive: true, force: true });
  return { summary, figures };
}

/** Ends the keep-alive sockets once every publish run is over. */
export function closePublishClient(): void {
  agent.destroy();
}

export function publishTable(figures: PublishFigures[]): BenchTable {
  return {
    name: `POST /v1/tools throughput (each client publishes successive versions of its own tool for ${RUN_MS / 1000} s after a ${WARM_UP_MS / 1000} s warm-up)`,
    rows: figures.map((f) => ({
      bus: f.bus === 'kafka' ? 'Kafka (local broker)' : 'in-process bus',
      clients: f.clients,
      published: f.published,
      'publishes/s': round(f.perSecond, 0),
      'p50 (ms)': round(f.latency.p50, 1),
      'p99 (ms)': round(f.latency.p99, 1),
      errors: f.errors,
      'CPU ms/publish: estate node': round(f.cpuPerPublish['estate node'], 2),
      'postgres backends': round(f.cpuPerPublish['postgres backends'], 2),
      'postgres background': round(f.cpuPerPublish['postgres background'], 2),
      'kafka broker': f.bus === 'kafka' ? round(f.cpuPerPublish['kafka broker'], 2) : '-',
      total: round(Object.values(f.cpuPerPublish).reduce((a, b) => a + b, 0), 2),
      // Not in the total: the load generator shares the cores, so what it spends is not the estate's to spend.
      'load generator CPU (ms/publish)': f.clientCpuPerPublish === undefined ? '-' : round(f.clientCpuPerPublish, 2),
      'load (1 min)': round(f.load, 1),
      'estate idle CPU (ms/s)': f.idleCpuPerSecond === undefined ? '-' : round(f.idleCpuPerSecond, 0),
      // What the publishes themselves cost the estate and PostgreSQL: the idle share the rate carries taken out.
      'estate + postgres net of idle (ms/publish)': f.idleCpuPerSecond === undefined || f.perSecond === 0 ? '-'
        : round(f.cpuPerPublish['estate node'] + f.cpuPerPublish['postgres backends'] + f.cpuPerPublish['postgres background'] - f.idleCpuPerSecond / f.perSecond, 2),
    })),
  };
}
