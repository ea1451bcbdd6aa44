import { randomUUID } from 'node:crypto';
import { issueDevToken, type Logger } from '@estate/platform';
import { loadDiscoveryConfig } from '../apps/discovery/src/config';
import { startDiscovery } from '../apps/discovery/src/discovery.app';
import { loadRegistryConfig } from '../apps/registry/src/config';
import { startRegistry } from '../apps/registry/src/registry.app';
import type { BenchTable } from './contracts.bench';
import { busFor, type BenchDatabase, type BusKind } from './ingest.bench';
import { BENCH_SECRET, benchTopicPrefix } from './support/edge.launcher';
import { round } from './support/load.runner';

const ADMIN = { sub: 'bench-admin', scope: 'estate:admin estate:publish', clearance: 'restricted' };
const CLIENTS = 16;
/** Versions per tool: consecutive versions of one tool share a batch, where discovery republishes the tool once. */
const VERSIONS = 20;

export interface CatchUpFigures {
  bus: BusKind;
  publishes: number;
  /** How long the burst of publishes took (16 concurrent clients). */
  burstSeconds: number;
  /** From the last publish answered to discovery having applied every event (what GET /v1/catalog serves). */
  visibleAfterLastMs: number;
  /** Discovery started after the publishes: from its start to every event applied. */
  coldSeconds: number;
}

function spec(tool: number, minor: number) {
  return {
    name: `bench.t${String(tool).padStart(4, '0')}`, version: `1.${minor}.0`, title: `Tool ${tool}`,
    description: 'A tool the catch-up benchmark publishes.',
    inputSchema: { type: 'object', properties: { id: { type: 'string' } } },
    sideEffect: 'read', requiredScopes: ['bench:read'], dataClassification: 'internal', tenants: [], owner: 'bench-team',
    upstream: { server: 'bench', tool: 'noop' },
  };
}

async function post(url: string, token: string, body: unknown): Promise<void> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body) });
  if (response.status !== 201) throw new Error(`POST ${url} answered ${response.status}: ${await response.text()}`);
}

/** `count` publishes from CLIENTS concurrent clients, each owning its tools and publishing their versions in order. */
async function burst(registryUrl: string, token: string, count: number, firstTool: number): Promise<number> {
  const tools = Math.ceil(count / VERSIONS);
  const workers = Array.from({ length: CLIENTS }, async (_, w) => {
    for (let t = w; t < tools; t += CLIENTS) {
      for (let v = 0; v < VERSIONS && t * VERSIONS + v < count; v += 1) await post(`${registryUrl}/v1/tools`, token, spec(firstTool + t, v));
    }
  });
  await Promise.all(workers);
  return performance.now();
}

async function applied(repo: { appliedEvents(): Promise<number> }, target: number, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while ((await repo.appliedEvents()) < target) {
    if (Date.now() > deadline) throw new Error(`discovery applied ${await repo.appliedEvents()} of ${target} events within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return performance.now();
}

/** Registry and discovery in this process on one bus: a live burst, then a cold catch-up over as many more. */
export async function measureCatchUp(kind: BusKind, publishes: number, brokers: string[], db: BenchDatabase, logger: Logger): Promise<CatchUpFigures> {
  const databaseUrl = await db.create();
  const bus = busFor(kind, brokers, databaseUrl, logger);
  const env = {
    ESTATE_JWT_SECRET: BENCH_SECRET, ESTATE_TOPIC_PREFIX: benchTopicPrefix(), ESTATE_REGISTRY_PORT: '0', ESTATE_DISCOVERY_PORT: '0',
    ESTATE_DISCOVERY_GROUP: `bench-discovery-${randomUUID()}`, ...(kind === 'kafka' ? { KAFKA_BROKERS: brokers.join(',') } : {}),
  };
  const registry = await startRegistry({ ...loadRegistryConfig(env), databaseUrl }, bus, logger);
  try {
    const token = await issueDevToken(BENCH_SECRET, ADMIN);
    await post(`${registry.url}/v1/servers`, token, { name: 'bench', url: 'http://127.0.0.1:1/mcp', owner: 'bench-team' });
    let discovery = await startDiscovery({ ...loadDiscoveryConfig(env), databaseUrl }, bus, logger);
    const startedBurst = performance.now();
    const last = await burst(registry.url, token, publishes, 0);
    const visible = await applied(discovery.repo, publishes + 1, 120_000);
    await discovery.stop();
    await burst(registry.url, token, publishes, 100_000);
    // Let the relay put the second burst on the log before discovery starts, so only catch-up is timed.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const coldStart = performance.now();
    discovery = await startDiscovery({ ...loadDiscoveryConfig(env), databaseUrl }, bus, logger);
    const caughtUp = await applied(discovery.repo, 2 * publishes + 1, 120_000);
    await discovery.stop();
    return { bus: kind, publishes, burstSeconds: (last - startedBurst) / 1000, visibleAfterLastMs: Math.max(0, visible - last), coldSeconds: (caughtUp - coldStart) / 1000 };
  } finally {
    await registry.stop();
    await bus.close();
  }
}

export function catchUpTable(figures: CatchUpFigures[]): BenchTable {
  return {
    name: `discovery catch-up: ${CLIENTS} clients publish (${VERSIONS} versions per tool), batched projection apply`,
    rows: figures.map((f) => ({
      bus: f.bus === 'kafka' ? 'Kafka (local broker)' : 'embedded PostgreSQL log',
      publishes: f.publishes,
      'burst (s)': round(f.burstSeconds, 2),
      'publishes/s': Math.round(f.publishes / f.burstSeconds),
      'all applied after the last publish (ms)': Math.round(f.visibleAfterLastMs),
      'cold catch-up (s)': round(f.coldSeconds, 2),
      'cold events/s': Math.round(f.publishes / f.coldSeconds),
    })),
  };
}
