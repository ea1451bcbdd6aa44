import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ToolSpec } from '@estate/contracts';
import type { CatalogEntry } from '@estate/events';
import { createLogger } from '@estate/platform';
import { startFaultProxy, type FaultProxyHandle } from '../../../../examples/bank/bank.faults';
import { startBankServer, type BankServerHandle } from '../../../../examples/bank/bank.server';
import { bankSpecs } from '../../../../examples/bank/bank.specs';
import { CatalogReplica } from './catalog.replica';
import { detectDrift } from './drift.detector';
import { DriftWatcher, type DriftReporter } from './drift.watcher';

/** What an upstream advertises, read the way the edge reads it: the SDK client over Streamable HTTP. */
async function listedAt(url: string): Promise<Tool[]> {
  const client = new Client({ name: 'drift-probe', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  try {
    return (await client.listTools()).tools;
  } finally {
    await client.close();
  }
}

/** The demo's catalog: every bank spec as the one active version of its tool, routed to the bank. */
const demoCatalog = (specs: ToolSpec[]): CatalogEntry[] =>
  specs.map((spec, i) => ({
    name: spec.name,
    position: i + 1,
    upstream: { server: 'bank', transport: 'streamable-http', url: 'http://bank', allowSampling: false, allowElicitation: false },
    versions: [{ version: spec.version, status: 'active', quarantined: false, spec, publishedAt: '2026-01-01T00:00:00Z' }],
  }));

describe('the demo bank serves its tools as the estate publishes them (real HTTP, SDK client)', () => {
  let bank: BankServerHandle;
  let faults: FaultProxyHandle;
  const specs = bankSpecs('bank');

  beforeAll(async () => {
    bank = await startBankServer({ port: 0 });
    faults = await startFaultProxy(bank.url);
  });

  afterAll(async () => {
    await faults?.close();
    await bank?.close();
  });

  it('advertises each published tool with the same title, description and input schema, and nothing else', async () => {
    const tools = await listedAt(bank.url);
    expect(tools.map((t) => t.name).sort()).toEqual(specs.map((s) => s.upstream.tool).sort());
    for (const spec of specs) {
      const tool = tools.find((t) => t.name === spec.upstream.tool);
      expect({ tool: tool?.name, title: tool?.title, description: tool?.description, inputSchema: tool?.inputSchema })
        .toEqual({ tool: spec.upstream.tool, title: spec.title, description: spec.description, inputSchema: spec.inputSchema });
    }
    expect(detectDrift('bank', demoCatalog(specs), tools, new Set())).toEqual({
      drifted: [], neverAgreed: [], agreeing: specs.map((s) => `${s.name}@${s.version}`),
    });
  });

  it('agrees at the first read without a warning, then quarantines the version whose schema the bank changes', async () => {
    const logger = createLogger('drift-bank-int', 'silent');
    const warn = jest.spyOn(logger, 'warn');
    const replica = new CatalogReplica(logger, 0);
    for (const entry of demoCatalog(specs)) replica.apply(entry.name, entry);
    replica.flush();
    const reports: Parameters<DriftReporter['report']>[0][] = [];
    const watcher = new DriftWatcher(replica, { report: (drift) => reports.push(drift) }, logger);

    watcher.observe('bank', await listedAt(faults.url));
    expect(warn).not.toHaveBeenCalled();
    expect(specs.filter((s) => replica.isQuarantined(s.name, s.version))).toEqual([]);

    faults.drift('transfer', { inputSchema: { ...specs[1].inputSchema, required: ['from', 'to', 'amount'] } }, false);
    watcher.observe('bank', await listedAt(faults.url));
    expect(specs.filter((s) => replica.isQuarantined(s.name, s.version)).map((s) => s.name)).toEqual(['bank.transfer']);
    expect(reports).toEqual([expect.objectContaining({ name: 'bank.transfer', version: '1.0.0', server: 'bank', upstreamTool: 'transfer', fields: ['inputSchema'] })]);
    expect(warn).toHaveBeenCalledWith(expect.objectContaining({ tool: 'bank.transfer', fields: ['inputSchema'] }), 'quarantining a drifted tool version');
  });
});
