import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startBankServer } from '../examples/bank/bank.server';
import { bankSpecs } from '../examples/bank/bank.specs';
import { ADMIN, connect, http, token, waitFor, type McpSession } from './support/estate.harness';
import { startEstateServices, type EdgeHandle, type EstateServices } from './support/estate.stack';
import { REPO_ROOT } from './support/infra';
import { dashboardExpressions, exposedNames, labelValues, metricNames, type DashboardPanel } from './support/promql.names';

/**
 * /metrics on the four services in this process (real Kafka, real PostgreSQL), after real
 * traffic through the official MCP client: one good call, one refused, one with a hostile name.
 */

const AGENT = { sub: 'metrics-agent-7f3a', scope: 'bank:read', clearance: 'internal' as const };
const HOSTILE = `x${'\u202e'.repeat(10)}${'y'.repeat(2989)}`;
const SCRAPE_TOKEN = 'metrics-e2e-scrape-token-0123456789';

async function scrape(baseUrl: string, bearer?: string): Promise<{ status: number; text: string }> {
  const response = await fetch(`${baseUrl}/metrics`, { headers: bearer ? { authorization: `Bearer ${bearer}` } : {} });
  return { status: response.status, text: await response.text() };
}

/** The sum of the samples named `name` whose labels include `labels`; undefined when there is none. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  let sum: number | undefined;
  for (const line of text.split('\n')) {
    const parsed = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!parsed || parsed[1] !== name) continue;
    const has = Object.fromEntries([...(parsed[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => has[k] === v)) sum = (sum ?? 0) + Number(parsed[3]);
  }
  return sum;
}

describe('metrics on /metrics after traffic', () => {
  let estate: EstateServices;
  let edge: EdgeHandle;
  let agent: McpSession;
  let texts: Record<'registry' | 'discovery' | 'audit' | 'edge', string>;

  beforeAll(async () => {
    estate = await startEstateServices({ name: 'metrics-e2e', audit: true });
    const bank = await startBankServer({ port: 0 });
    estate.onStop(bank.close);
    edge = await estate.startEdge();
    const admin = await token(ADMIN);
    expect((await http('POST', `${estate.registryUrl}/v1/servers`, admin, { name: 'bank', url: bank.url, owner: 'ops' })).status).toBe(201);
    expect((await http('POST', `${estate.registryUrl}/v1/tools`, admin, bankSpecs('bank')[0])).status).toBe(201);
    await waitFor(async () => (edge.replica.get('bank.lookup') ? true : undefined), 'bank.lookup at the edge');

    agent = await connect(edge.mcpUrl, await token(AGENT));
    estate.onStop(() => agent.close());
    expect((await agent.client.callTool({ name: 'bank.lookup', arguments: { reference: 'PMT-771' } })).isError).toBeFalsy();
    const refused = await agent.client.callTool({ name: 'bank.lookup', arguments: { reference: 'not a reference' } }).catch((error: unknown) => error);
    expect(refused).toBeDefined();
    await agent.client.callTool({ name: HOSTILE, arguments: {} }).catch(() => undefined);

    // A second published name the agent may see: its session is told the list changed.
    const history = { ...bankSpecs('bank')[0], name: 'bank.history', title: 'Payment history' };
    expect((await http('POST', `${estate.registryUrl}/v1/tools`, admin, history)).status).toBe(201);
    await waitFor(async () => (agent.listChanged.length > 0 ? true : undefined), 'list_changed at the agent');
    expect((await http('POST', `${estate.discoveryUrl}/v1/rebuild`, admin)).status).toBeLessThan(300);

    const urls = { registry: estate.registryUrl, discovery: estate.discoveryUrl, audit: estate.auditUrl!, edge: edge.url };
    // Scrape once the calls have reached audit (its consumer moved) and the relay is drained.
    texts = await waitFor(async () => {
      const entries = await Promise.all(Object.entries(urls).map(async ([service, url]) => [service, (await scrape(url)).text] as const));
      const got = Object.fromEntries(entries) as typeof texts;
      const drained = sample(got.registry, 'estate_relay_backlog_events') === 0;
      const audited = labelValues(got.audit).some((l) => l.name === 'estate_consumer_lag_messages' && l.label === 'consumer' && l.value === 'calls');
      const calls = got.edge.includes('estate_tool_calls_total{tool="unknown"');
      return drained && audited && calls ? got : undefined;
    }, 'every service to expose its figures', 30_000);
  }, 120_000);

  afterAll(async () => {
    await estate.stop();
  });

  it('counts calls by tool, version and outcome with latency, refusals by reason, sessions and the list_changed fan-out', () => {
    const edgeText = texts.edge;
    expect(sample(edgeText, 'estate_tool_calls_total', { tool: 'bank.lookup', version: '1.0.0', outcome: 'ok' })).toBe(1);
    expect(sample(edgeText, 'estate_tool_calls_total', { tool: 'bank.lookup', version: '1.0.0', outcome: 'refused' })).toBe(1);
    expect(sample(edgeText, 'estate_tool_calls_total', { tool: 'unknown', version: 'unknown', outcome: 'refused' })).toBe(1);
    expect(sample(edgeText, 'estate_tool_call_refusals_total', { reason: 'invalid_arguments' })).toBe(1);
    expect(sample(edgeText, 'estate_tool_call_duration_seconds_count', { tool: 'bank.lookup', version: '1.0.0', outcome: 'ok' })).toBe(1);
    expect(sample(edgeText, 'estate_mcp_sessions')).toBeGreaterThanOrEqual(1);
    expect(sample(edgeText, 'estate_catalog_tools')).toBe(2);
    expect(sample(edgeText, 'estate_list_changed_notifications_total')).toBeGreaterThanOrEqual(1);
    expect(edgeText).toMatch(/^estate_consumer_lag_messages\{consumer="catalog",topic="[^"]+estate\.catalog",group="[^"]+",partition="0",service="mcp-edge"\} 0$/m);
  });

  it('shows the relay, the consumers, dead letters and rebuilds where they happen, with process metrics everywhere', () => {
    expect(sample(texts.registry, 'estate_relay_backlog_events')).toBe(0);
    expect(sample(texts.registry, 'estate_relay_leading')).toBe(1);
    expect(sample(texts.registry, 'estate_relay_lag_seconds')).toBe(0);
    expect(sample(texts.discovery, 'estate_rebuilds_total', { outcome: 'ok' })).toBe(1);
    expect(sample(texts.discovery, 'estate_rebuild_running')).toBe(0);
    expect(sample(texts.discovery, 'estate_rebuild_events_read')).toBeGreaterThanOrEqual(3);
    expect(texts.discovery).toMatch(/^estate_consumer_subscribed\{consumer="projector",.*service="discovery"\} 1$/m);
    expect(texts.audit).toMatch(/^estate_consumer_subscribed\{consumer="calls",.*service="audit"\} 1$/m);
    for (const [service, text] of Object.entries(texts)) {
      expect({ service, dead: /^estate_dead_letters_total\{service="[^"]+"\} 0$/m.test(text) || service === 'registry' }).toEqual({ service, dead: true });
      expect({ service, process: exposedNames(text).has('process_cpu_seconds_total') }).toEqual({ service, process: true });
    }
    // Each service shows its own series only, though all four share this process.
    expect(exposedNames(texts.registry).has('estate_tool_calls_total')).toBe(false);
    expect(exposedNames(texts.edge).has('estate_relay_backlog_events')).toBe(false);
  });

  it('keeps label values bounded: no principal, session id or hostile tool name ever becomes one', () => {
    const sessionIds = [...(edge.sessions as unknown as { sessions: Map<string, unknown> }).sessions.keys()];
    expect(sessionIds.length).toBeGreaterThan(0);
    for (const [service, text] of Object.entries(texts)) {
      for (const { name, label, value } of labelValues(text)) {
        const where = { service, name, label };
        expect({ ...where, length: value.length <= 128 }).toEqual({ ...where, length: true });
        expect({ ...where, value }).not.toEqual({ ...where, value: expect.stringMatching(/yyyy|\u202e|metrics-agent|platform-admin/) });
        for (const id of sessionIds) expect(value).not.toContain(id);
        if (label === 'tool') expect(['bank.lookup', 'bank.history', 'unknown']).toContain(value);
      }
    }
  });

  it('exports every metric the Grafana dashboard queries', () => {
    const dashboard = JSON.parse(readFileSync(path.join(REPO_ROOT, 'infra/observability/grafana/dashboards/estate.json'), 'utf8')) as { panels: DashboardPanel[] };
    const exported = new Set(Object.values(texts).flatMap((text) => [...exposedNames(text)]));
    const queried = dashboardExpressions(dashboard).flatMap(({ panel, expr }) => metricNames(expr).map((name) => ({ panel, name })));
    expect(queried.length).toBeGreaterThan(20);
    const missing = queried.filter(({ name }) => !exported.has(name));
    expect(missing).toEqual([]);
  });

  it('never shows metrics to an agent token; with a scrape token set, only its bearer reads them', async () => {
    const agentToken = await token(AGENT);
    const refused = await scrape(edge.url, agentToken);
    expect(refused.status).toBe(403);
    expect(refused.text).not.toContain('bank.lookup');
    const guarded = await estate.startEdge({ ESTATE_METRICS_TOKEN: SCRAPE_TOKEN });
    for (const bearer of [undefined, agentToken, await token(ADMIN), `${SCRAPE_TOKEN}x`]) {
      const answer = await scrape(guarded.url, bearer);
      expect(answer.status).toBe(401);
      expect(JSON.parse(answer.text)).toMatchObject({ error: 'UNAUTHENTICATED' });
    }
    const allowed = await scrape(guarded.url, SCRAPE_TOKEN);
    expect(allowed.status).toBe(200);
    expect(allowed.text).toContain('estate_catalog_tools{service="mcp-edge"}');
  });

  it('leaves the edge\'s other routes as they were: health answers, unknown paths get the JSON-RPC 404, /metrics refuses POST', async () => {
    expect((await fetch(`${edge.url}/healthz`)).status).toBe(200);
    const unknown = await fetch(`${edge.url}/metricsz`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
    const post = await fetch(`${edge.url}/metrics`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });
});
