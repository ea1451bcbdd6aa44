import { conformanceSpecs } from '../../examples/conformance/conformance.tools';
import { startConformanceServer, type ConformanceServerHandle } from '../../examples/conformance/conformance.server';
import { ADMIN, http, token, waitFor } from '../support/estate.harness';
import { freePort } from '../support/infra';
import { judge, readExpectedFailures, runConformance, type ScenarioResult } from './conformance.runner';
import { node22, startEstate, type RunningEstate } from './interop.harness';

const PUBLISHER = { sub: 'release-bot', scope: 'estate:publish', clearance: 'restricted' };

function table(results: ScenarioResult[], expected: Record<string, string>): string {
  return results
    .map((r) => `${r.outcome === 'pass' ? 'PASS' : r.scenario in expected ? 'XFAIL' : 'FAIL'}  ${r.scenario}${r.failures.length ? `  — ${r.failures.join(' | ')}` : ''}`)
    .join('\n');
}

/**
 * The official conformance suite against the edge: the fixture upstream is registered without a
 * namespace by an admin, its tools are published as ordinary ToolSpecs, and the suite (Node 22,
 * no token: the edge runs with ESTATE_AUTH=none on loopback) resolves the bare names through it.
 */
describe('conformance suite against the edge', () => {
  let fixture: ConformanceServerHandle;
  let estate: RunningEstate;
  let admin: string;

  beforeAll(async () => {
    fixture = await startConformanceServer({ port: 0 });
    const port = await freePort();
    estate = await startEstate({
      ESTATE_AUTH: 'none',
      ESTATE_LOCAL_PRINCIPAL: 'conformance-suite',
      // Every scenario is the one local principal, and few of them end their session.
      ESTATE_MAX_SESSIONS_PER_PRINCIPAL: '1000',
      ESTATE_EDGE_PORT: String(port),
      // The suite's DNS-rebinding scenario sends the edge's own origin and expects it to be served.
      ESTATE_ALLOWED_ORIGINS: `http://127.0.0.1:${port},http://localhost:${port}`,
    });
    admin = await token(ADMIN);
  }, 120000);

  afterAll(async () => {
    await estate?.stop();
    await fixture?.close();
  });

  it('refuses a namespace-less server from a principal without estate:admin, and records nothing', async () => {
    const body = { name: 'conformance', namespace: '', url: fixture.url, owner: 'conformance-fixture', allowSampling: true, allowElicitation: true };
    const refused = await http('POST', `${estate.registryUrl}/v1/servers`, await token(PUBLISHER), body);
    expect(refused.status).toBe(403);
    expect(JSON.stringify(refused.body)).toContain('estate:admin');
    const lookup = await http('GET', `${estate.registryUrl}/v1/servers/conformance`, admin);
    expect(lookup.status).toBe(404);
  });

  it('lets an admin register it with bare names, publishes its tools and shows the registration in the audit trail', async () => {
    const body = { name: 'conformance', namespace: '', url: fixture.url, owner: 'conformance-fixture', allowSampling: true, allowElicitation: true };
    const registered = await http('POST', `${estate.registryUrl}/v1/servers`, admin, body);
    expect(registered).toMatchObject({ status: 201, body: { name: 'conformance', namespace: '' } });
    for (const spec of conformanceSpecs('conformance')) {
      const published = await http('POST', `${estate.registryUrl}/v1/tools`, admin, spec);
      expect({ tool: spec.name, status: published.status, body: published.body }).toMatchObject({ tool: spec.name, status: 201 });
    }
    const entries = await waitFor(async () => {
      const r = await http('GET', `${estate.auditUrl}/v1/audit?type=ServerRegistered`, admin);
      const list = r.body.entries as Array<Record<string, unknown>> | undefined;
      return list && list.length > 0 ? list : undefined;
    }, 'the registration in the audit trail');
    expect(entries).toEqual([expect.objectContaining({ type: 'ServerRegistered', stream: 'conformance', principal: 'platform-admin' })]);
    expect(entries[0].data).toMatchObject({ name: 'conformance', namespace: '', url: fixture.url });
    const count = conformanceSpecs().length;
    await waitFor(async () => (estate.edgeTools() >= count ? true : undefined), `the edge to hold all ${count} fixture tools`, 30000);
  });

  it('passes every active server scenario except the listed ones, and every listed one still fails', async () => {
    const expected = readExpectedFailures();
    const { results, output } = await runConformance(estate.mcpUrl, node22());
    const verdict = judge(results, expected);
    process.stderr.write(`[conformance] ${results.filter((r) => r.outcome === 'pass').length}/${results.length} scenarios pass\n${table(results, expected)}\n`);
    if (verdict.unexpectedFailures.length + verdict.nowPassing.length + verdict.notRun.length > 0) {
      process.stderr.write(`[conformance] suite output (tail):\n${output.slice(-4000)}\n`);
    }
    expect(verdict).toEqual({ unexpectedFailures: [], nowPassing: [], notRun: [] });
  }, 300000);
});
