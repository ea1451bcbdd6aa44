import type { ToolSpec } from '@estate/contracts';
import { startBankServer, type BankServerHandle } from '../../examples/bank/bank.server';
import { startFaultProxy, type FaultProxyHandle } from '../../examples/bank/bank.faults';
import { startEstateServices, type EdgeHandle } from './estate.stack';
import { ADMIN, http, token, waitFor } from './estate.harness';

export type { EdgeHandle };

/**
 * The whole estate for the edge's tool tests: registry, discovery, audit and an edge on real
 * Kafka and PostgreSQL, with the bank registered behind a fault-injecting proxy (the bank's own
 * /stats still counts what reached it).
 */
export interface ToolsStack {
  env: Record<string, string>;
  registryUrl: string;
  discoveryUrl: string;
  auditUrl: string;
  mcpUrl: string;
  edge: EdgeHandle;
  bank: BankServerHandle;
  faults: FaultProxyHandle;
  admin: string;
  register(body: Record<string, unknown>): Promise<void>;
  /** Publishes and waits until the edge's replica holds that version. */
  publish(spec: ToolSpec): Promise<void>;
  lifecycle(name: string, version: string, action: 'deprecate' | 'retire' | 'quarantine', reason?: string): Promise<{ status: number; body: Record<string, unknown> }>;
  /** Audit entries for a query, once at least `count` are there. */
  audit(query: string, count: number): Promise<Array<Record<string, unknown>>>;
  startEdge(extra?: Record<string, string>): Promise<EdgeHandle>;
  stop(): Promise<void>;
}

export async function startToolsStack(edgeEnv: Record<string, string> = {}): Promise<ToolsStack> {
  const services = await startEstateServices({ name: 'edge-tools-e2e', audit: true });
  const bank = await startBankServer({ port: 0 });
  services.onStop(bank.close);
  const faults = await startFaultProxy(bank.url);
  services.onStop(faults.close);
  const { env } = services;
  const registry = { url: services.registryUrl };
  const audit = { url: services.auditUrl as string };
  const boot = (extra: Record<string, string>) => services.startEdge({ ESTATE_REGISTRY_URL: registry.url, ...edgeEnv, ...extra });
  const edge = await boot({});
  const admin = await token(ADMIN);
  const stack: ToolsStack = {
    env, registryUrl: registry.url, discoveryUrl: services.discoveryUrl, auditUrl: audit.url, mcpUrl: edge.mcpUrl, edge, bank, faults, admin,
    register: async (body) => {
      const r = await http('POST', `${registry.url}/v1/servers`, admin, { owner: 'payments-team', ...body });
      if (r.status !== 201) throw new Error(`registering failed: ${JSON.stringify(r)}`);
    },
    publish: async (spec) => {
      const r = await http('POST', `${registry.url}/v1/tools`, admin, spec);
      if (r.status !== 201) throw new Error(`publishing ${spec.name}@${spec.version} failed: ${JSON.stringify(r)}`);
      await waitFor(async () => (edge.replica.get(spec.name)?.versions.some((v) => v.version === spec.version) ? true : undefined), `${spec.name}@${spec.version} at the edge`);
    },
    lifecycle: (name, version, action, reason = 'test') => http('POST', `${registry.url}/v1/tools/${name}/versions/${version}/${action}`, admin, { reason }),
    audit: (query, count) => waitFor(async () => {
      const r = await http('GET', `${audit.url}/v1/audit?${query}`, admin);
      const entries = r.body.entries as Array<Record<string, unknown>> | undefined;
      return entries && entries.length >= count ? entries : undefined;
    }, `${count} audit entries for ${query}`),
    startEdge: boot,
    stop: () => services.stop(),
  };
  await stack.register({ name: 'bank', url: faults.url });
  return stack;
}

/** A raw JSON-RPC POST to the edge: the wire shape, status and headers as a client sees them. */
export async function rpc(url: string, bearer: string, body: unknown, session?: { id: string; version: string }) {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${bearer}`,
      ...(session ? { 'mcp-session-id': session.id, 'mcp-protocol-version': session.version } : {}),
    },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  const data = text.split('\n').filter((l) => l.startsWith('data:') && l.slice(5).trim().length > 0).map((l) => JSON.parse(l.slice(5)) as Record<string, unknown>);
  const message = data.length > 0 ? data[data.length - 1] : text ? (JSON.parse(text) as Record<string, unknown>) : {};
  return { status: response.status, sessionId: response.headers.get('mcp-session-id') ?? undefined, message };
}

/** Opens a session over raw HTTP (initialize + initialized), with `_meta` on initialize if given. */
export async function rawSession(url: string, bearer: string, version: string, meta?: Record<string, unknown>) {
  const init = await rpc(url, bearer, {
    jsonrpc: '2.0', id: 1, method: 'initialize',
    params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'raw', version: '1' }, ...(meta ? { _meta: meta } : {}) },
  });
  if (!init.sessionId) throw new Error(`initialize failed: ${JSON.stringify(init)}`);
  const session = { id: init.sessionId, version };
  await rpc(url, bearer, { jsonrpc: '2.0', method: 'notifications/initialized' }, session);
  let next = 2;
  return { session, request: (method: string, params?: unknown) => rpc(url, bearer, { jsonrpc: '2.0', id: next++, method, params }, session) };
}
