import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { startTracing, type Tracing } from '@estate/platform';
import { bankSpecs } from '../examples/bank/bank.specs';
import { startBankServer } from '../examples/bank/bank.server';
import { ADMIN, connect, http, token, waitFor, type McpSession } from './support/estate.harness';
import { startEstateServices, type EstateServices } from './support/estate.stack';
import { startRecordingProxy, type RecordingProxy } from './support/header-recording.proxy';

type FinishedSpan = ReturnType<InMemorySpanExporter['getFinishedSpans']>[number];

const ALICE = { sub: 'alice', scope: 'bank:read', clearance: 'internal' };

/** A caller's own trace: what an instrumented client or gateway in front of Estate would send. */
function callerTrace(): { traceId: string; spanId: string; traceparent: string } {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

const parentOf = (span: FinishedSpan) => span.parentSpanContext?.spanId;

/**
 * All services of the stack run in this process, with the SDK started in it and spans kept in
 * memory: one trace must run from the registry's HTTP request to the edge's notification, and
 * from the agent's tools/call to the upstream and audit's record, across real Kafka and PostgreSQL.
 */
// One provider for the file: every service of the stack shares this process, as in `npm start`.
const exporter = new InMemorySpanExporter();
let tracing: Tracing | undefined;
beforeAll(() => {
  tracing = startTracing({}, 'estate-traces-e2e', { spanProcessors: [new SimpleSpanProcessor(exporter)] });
});
afterAll(async () => {
  await tracing?.shutdown();
});

describe.each(['kafka', 'postgres'] as const)('traces across the estate (%s bus, PostgreSQL)', (bus) => {
  let estate: EstateServices;
  let proxy: RecordingProxy;
  let mcpUrl: string;
  let alice: McpSession;

  const spansOf = (traceId: string) => exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
  const named = (spans: FinishedSpan[], name: string) => {
    const found = spans.filter((s) => s.name === name);
    if (found.length !== 1) throw new Error(`expected one span "${name}", found ${found.length} among ${spans.map((s) => s.name).join(', ')}`);
    return found[0];
  };

  beforeAll(async () => {
    estate = await startEstateServices({ name: `traces-${bus}`, audit: true, bus });
    const bank = await startBankServer({ port: 0 });
    proxy = await startRecordingProxy(bank.url);
    estate.onStop(bank.close);
    estate.onStop(proxy.close);
    mcpUrl = (await estate.startEdge()).mcpUrl;
    const admin = await token(ADMIN);
    expect((await http('POST', `${estate.registryUrl}/v1/servers`, admin, { name: 'bank', url: proxy.url, owner: 'payments-team' })).status).toBe(201);
    expect((await http('POST', `${estate.registryUrl}/v1/tools`, admin, bankSpecs('bank')[0])).status).toBe(201);
    alice = await connect(mcpUrl, await token(ALICE));
    await waitFor(async () => ((await alice.client.listTools()).tools.some((t) => t.name === 'bank.lookup') ? true : undefined), 'alice to see bank.lookup');
  }, 60000);

  afterAll(async () => {
    await alice?.close();
    await estate?.stop();
  });

  it('a publish is one trace: registry request → append → relay → discovery apply → edge notification, and audit', async () => {
    const caller = callerTrace();
    const lookup = bankSpecs('bank')[0];
    const properties = { ...(lookup.inputSchema.properties as object), memo: { type: 'string', maxLength: 140 } };
    const next = { ...lookup, version: '1.1.0', inputSchema: { ...lookup.inputSchema, properties } };
    const response = await fetch(`${estate.registryUrl}/v1/tools`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${await token(ADMIN)}`, traceparent: caller.traceparent },
      body: JSON.stringify(next),
    });
    expect(response.status).toBe(201);
    await waitFor(async () => (alice.listChanged.length > 0 ? true : undefined), 'list_changed at alice');
    const wanted = ['registry append', 'discovery apply', 'edge notify catalog change', 'audit record registry'];
    const spans = await waitFor(async () => {
      const found = spansOf(caller.traceId);
      return wanted.every((name) => found.some((s) => s.name === name)) ? found : undefined;
    }, 'the publish trace to reach the edge and audit');

    const request = named(spans, 'POST /v1/tools');
    expect(request.attributes['http.response.status_code']).toBe(201);
    const append = named(spans, 'registry append');
    const relay = spans.find((s) => s.name.startsWith('relay send '));
    const apply = named(spans, 'discovery apply');
    const notify = named(spans, 'edge notify catalog change');
    const audit = named(spans, 'audit record registry');
    // Each step is the child of the one before: the context went through the event store and the bus.
    expect(parentOf(request)).toBe(caller.spanId);
    expect(parentOf(append)).toBe(request.spanContext().spanId);
    expect(relay && parentOf(relay)).toBe(append.spanContext().spanId);
    expect(parentOf(apply)).toBe(relay?.spanContext().spanId);
    expect(parentOf(notify)).toBe(apply.spanContext().spanId);
    expect(parentOf(audit)).toBe(relay?.spanContext().spanId);
    expect(append.attributes['estate.events']).toBe('ToolVersionPublished');
    expect(notify.attributes['estate.tools']).toBe('bank.lookup');
  });

  it('a request span is named by its route, not by the ids in its path', async () => {
    const caller = callerTrace();
    const response = await fetch(`${estate.registryUrl}/v1/tools/bank.lookup/versions/9.9.9/deprecate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${await token(ADMIN)}`, traceparent: caller.traceparent },
      body: JSON.stringify({ reason: 'never published' }),
    });
    expect(response.status).toBeGreaterThanOrEqual(400);
    const [span] = await waitFor(async () => {
      const found = spansOf(caller.traceId).filter((s) => parentOf(s) === caller.spanId);
      return found.length > 0 ? found : undefined;
    }, 'the request span');
    expect(span.name).toBe('POST /v1/tools/:name/versions/:version/deprecate');
    expect(span.attributes['url.path']).toBe('/v1/tools/bank.lookup/versions/9.9.9/deprecate');
    expect(span.attributes['http.response.status_code']).toBe(response.status);
  });

  it('a tools/call is one trace: edge request → call → validation, policy, upstream (which gets the traceparent) → audit', async () => {
    const caller = callerTrace();
    const client = new Client({ name: 'traces-e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), {
      requestInit: { headers: { authorization: `Bearer ${await token(ALICE)}`, traceparent: caller.traceparent } },
    }));
    try {
      const result = await client.callTool({ name: 'bank.lookup', arguments: { reference: 'PMT-771' } });
      expect(result.isError).toBeFalsy();
    } finally {
      await client.close();
    }
    const spans = await waitFor(async () => {
      const found = spansOf(caller.traceId);
      return found.some((s) => s.name === 'audit record calls') ? found : undefined;
    }, 'the call trace to reach audit');

    const call = named(spans, 'edge tools/call');
    const validate = named(spans, 'edge validate arguments');
    const policy = named(spans, 'edge policy');
    const upstream = named(spans, 'edge upstream call');
    const audit = named(spans, 'audit record calls');
    const request = spans.find((s) => s.spanContext().spanId === parentOf(call));
    expect(request?.name).toBe('POST /mcp');
    expect(request && parentOf(request)).toBe(caller.spanId);
    for (const step of [validate, policy, upstream]) expect(parentOf(step)).toBe(call.spanContext().spanId);
    expect(call.attributes['estate.tool']).toBe('bank.lookup');
    // The upstream's own HTTP request continued the trace, as a child of the upstream step.
    expect(proxy.traceparents).toContain(`00-${caller.traceId}-${upstream.spanContext().spanId}-01`);
    // Audit recorded the call as part of the same trace (the record was made during the upstream step).
    expect(parentOf(audit)).toBe(upstream.spanContext().spanId);
  });
});
