import { bankSpecs } from '../../examples/bank/bank.specs';
import { startBankServer, type BankServerHandle } from '../../examples/bank/bank.server';
import { startEstateServices, type EdgeHandle } from './estate.stack';
import { ADMIN, http, token, waitFor } from './estate.harness';

export type { EdgeHandle };

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
  /** An in-process edge whose catalog already holds bank.lookup. */
  startEdgeWithLookup(): Promise<EdgeHandle>;
  /** Publishes the next minor version of bank.lookup: sessions that see it get list_changed. */
  publishLookup(version: string): Promise<void>;
  stop(): Promise<void>;
}

export async function startEdgeStack(): Promise<EdgeStack> {
  const services = await startEstateServices({ name: 'edge-e2e' });
  const bank = await startBankServer({ port: 0 });
  services.onStop(bank.close);
  const { env } = services;
  const registry = { url: services.registryUrl };
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
    startEdge: (extra = {}) => services.startEdge(extra),
    startEdgeWithLookup: async () => {
      const edge = await services.startEdge({});
      await waitFor(async () => (edge.replica.get('bank.lookup') ? true : undefined), 'bank.lookup in the edge catalog');
      return edge;
    },
    stop: () => services.stop(),
  };
}
