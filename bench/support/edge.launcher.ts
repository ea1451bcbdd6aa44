import { randomBytes } from 'node:crypto';
import { topicName, type CatalogEntry } from '@estate/events';
import { freePort, issueDevToken, KafkaEventBus, type Logger } from '@estate/platform';
import { startChild, waitUntil, type BenchChild } from './child-process.launcher';

export const BENCH_SECRET = `bench-secret-${randomBytes(12).toString('hex')}`;

/** A topic prefix of this run only, so nothing another run left on the broker is read. */
export function benchTopicPrefix(): string {
  return `bench${randomBytes(5).toString('hex')}.`;
}

/** Writes the catalog straight onto `<prefix>estate.catalog`, the way discovery republishes it. */
export async function feedCatalog(brokers: string[], prefix: string, entries: CatalogEntry[], logger: Logger): Promise<void> {
  const bus = new KafkaEventBus({ brokers, clientId: 'estate-bench', logger });
  try {
    const topic = topicName(prefix, 'catalog');
    await bus.ensureTopics([{ name: topic, compacted: true }, { name: topicName(prefix, 'calls') }]);
    for (let i = 0; i < entries.length; i += 250) {
      await bus.publish(topic, entries.slice(i, i + 250).map((e) => ({ key: e.name, value: JSON.stringify(e) })));
    }
  } finally {
    await bus.close();
  }
}

export interface EdgeChild {
  child: BenchChild;
  url: string;
  mcpUrl: string;
}

interface Health {
  sessions: number;
  tools: number;
}

/** The edge's counts are for administrators only (/v1/status). */
export async function edgeHealth(url: string): Promise<Health> {
  const admin = await issueDevToken(BENCH_SECRET, { sub: 'bench-admin', scope: 'estate:admin' });
  const response = await fetch(`${url}/v1/status`, { headers: { authorization: `Bearer ${admin}` } });
  return (await response.json()) as Health;
}

/**
 * The real edge, built (dist/apps/mcp-edge/src/main.js), alone in its own process on Kafka, so
 * its RSS and its CPU profile are its own. Resolves once its replica holds `tools` entries.
 */
export async function startEdgeChild(brokers: string[], prefix: string, tools: number, nodeFlags: string[] = [], distDir = 'dist'): Promise<EdgeChild> {
  const port = await freePort();
  const { child } = await startChild({
    args: [...nodeFlags, `${distDir}/apps/mcp-edge/src/main.js`],
    env: {
      KAFKA_BROKERS: brokers.join(','),
      ESTATE_TOPIC_PREFIX: prefix,
      ESTATE_JWT_SECRET: BENCH_SECRET,
      ESTATE_EDGE_PORT: String(port),
      ESTATE_EDGE_GROUP: `bench-edge-${randomBytes(4).toString('hex')}`,
      // One bench principal sends thousands of calls a second: the limiter still runs on every call,
      // but its ceiling sits above the load so the figures are the served path, not refusals.
      ESTATE_RATE_PER_PRINCIPAL: '100000000',
      ESTATE_RATE_PER_TOOL: '100000000',
      // The session-memory figure opens a thousand sessions for that one principal.
      ESTATE_MAX_SESSIONS_PER_PRINCIPAL: '100000',
    },
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitUntil(async () => ((await edgeHealth(url)).tools >= tools ? true : undefined), `the edge replica to hold ${tools} tools`, 60_000);
  } catch (error) {
    await child.stop();
    throw new Error(`${String(error)}\nedge output:\n${child.output().slice(-2000)}`);
  }
  return { child, url, mcpUrl: `${url}/mcp` };
}
