import { createLogger, KafkaEventBus } from '@estate/platform';
import { bankSpecs } from '../../examples/bank/bank.specs';
import { startBankServer, type BankServerHandle } from '../../examples/bank/bank.server';
import { loadDiscoveryConfig } from '../../apps/discovery/src/config';
import { startDiscovery } from '../../apps/discovery/src/discovery.app';
import { loadEdgeConfig } from '../../apps/mcp-edge/src/config';
import { startEdge } from '../../apps/mcp-edge/src/edge.app';
import { loadRegistryConfig } from '../../apps/registry/src/config';
import { startRegistry } from '../../apps/registry/src/registry.app';
import { createTestDatabase, kafkaBrokers, randomTopicPrefix } from './infra';
import { ADMIN, http, TEST_SECRET, token } from './estate.harness';

export type EdgeHandle = Awaited<ReturnType<typeof startEdge>>;

export const ALICE = { sub: 'alice', scope: 'bank:read', clearance: 'internal' };
export const BOB = { sub: 'bob', scope: 'bank:read', clearance: 'internal' };

/**
 * Registry, discovery and the bank upstream on real Kafka and PostgreSQL, with bank.lookup
 * published, and edges started on demand (in-process, or as children from `env`).
 */
export interface EdgeStack {
  /** The environment every edge of this stack needs (topic prefix, brokers, secret). */
  env: Record<string, string>;
  registryUrl: string;
  bank: BankServerHandle;
  startEdge(extra?: Record<string, string>): Promise<EdgeHandle>;
  /** Publishes the next minor version of bank.lookup: sessions that see it get list_changed. */
  publishLookup(version: string): Promise<void>;
  stop(): Promise<void>;
}

export async function startEdgeStack(): Promise<EdgeStack> {
  const logger = createLogger('edge-e2e', 'error');
  const stops: Array<() => Promise<void>> = [];
  const db = await createTestDatabase();
  stops.push(db.drop);
  const bank = await startBankServer({ port: 0 });
  stops.push(bank.close);
  const env = {
    ESTATE_JWT_SECRET: TEST_SECRET,
    ESTATE_TOPIC_PREFIX: randomTopicPrefix(),
    KAFKA_BROKERS: kafkaBrokers().join(','),
    ESTATE_REGISTRY_PORT: '0', ESTATE_DISCOVERY_PORT: '0', ESTATE_EDGE_PORT: '0',
    ESTATE_DISCOVERY_GROUP: `discovery-${Date.now()}`,
  };
  const bus = new KafkaEventBus({ brokers: kafkaBrokers(), clientId: 'edge-e2e', logger });
  stops.push(() => bus.close());
  const registry = await startRegistry({ ...loadRegistryConfig(env), databaseUrl: db.url }, bus, logger);
  const discovery = await startDiscovery({ ...loadDiscoveryConfig(env), databaseUrl: db.url }, bus, logger);
  stops.push(registry.stop, discovery.stop);
  const admin = await token(ADMIN);
  const registered = await http('POST', `${registry.url}/v1/servers`, admin, { name: 'bank', url: bank.url, owner: 'payments-team' });
  if (registered.status !== 201) throw new Error(`registering bank failed: ${JSON.stringify(registered)}`);
  const lookup = bankSpecs('bank')[0];
  const publishLookup = async (version: string) => {
    const description = `${lookup.description} (${version})`;
    const published = await http('POST', `${registry.url}/v1/tools`, admin, { ...lookup, version, description });
    if (published.status !== 201) throw new Error(`publishing ${version} failed: ${JSON.stringify(published)}`);
  };
  await publishLookup('1.0.0');
  return {
    env,
    registryUrl: registry.url,
    bank,
    publishLookup,
    startEdge: async (extra = {}) => {
      const edge = await startEdge(loadEdgeConfig({ ...env, ...extra }), bus, logger);
      stops.push(edge.stop);
      return edge;
    },
    stop: async () => {
      for (const stop of stops.reverse()) await stop().catch(() => undefined);
    },
  };
}
