import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startChild, type BenchChild } from './child-process.launcher';
import { BENCH_SECRET, benchTopicPrefix } from './edge.launcher';

export interface BenchEstate {
  child: BenchChild;
  edge: string;
  registry: string;
  /** The topic prefix this estate's topics carry (`<prefix>estate.catalog`, …). */
  prefix: string;
  stop(): Promise<void>;
}

function bannerUrl(output: string, label: string): string | undefined {
  return new RegExp(`${label}\\s+(http://\\S+)`).exec(output)?.[1];
}

/** All four services from dist in one child (npm start's entry): embedded PostgreSQL, Kafka or the in-process bus. */
export async function startBenchEstate(brokers: string[] | undefined, nodeFlags: string[] = [], env: Record<string, string> = {}): Promise<BenchEstate> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'estate-bench-'));
  const suffix = path.basename(dataDir);
  const prefix = benchTopicPrefix();
  const { child } = await startChild({
    args: [...nodeFlags, 'dist/apps/estate/src/main.js'],
    env: {
      ESTATE_DATA_DIR: dataDir, ESTATE_DEMO: '0', ESTATE_JWT_SECRET: BENCH_SECRET, DATABASE_URL: '',
      KAFKA_BROKERS: brokers?.join(',') ?? '', ESTATE_TOPIC_PREFIX: prefix,
      ESTATE_REGISTRY_PORT: '0', ESTATE_DISCOVERY_PORT: '0', ESTATE_AUDIT_PORT: '0', ESTATE_EDGE_PORT: '0', ESTATE_CONSOLE_PORT: '0',
      ESTATE_DISCOVERY_GROUP: `bench-discovery-${suffix}`, ESTATE_AUDIT_GROUP: `bench-audit-${suffix}`,
      ...env,
    },
    ready: (out) => (out.includes('Ctrl-C stops everything') ? '' : undefined),
    readyTimeoutMs: 120_000,
  });
  const edge = bannerUrl(child.output(), 'MCP edge');
  const registry = bannerUrl(child.output(), 'registry');
  if (!edge || !registry) throw new Error(`estate banner without URLs:\n${child.output().slice(-1500)}`);
  return {
    child, edge, registry, prefix,
    stop: async () => {
      await child.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
