import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bankSpecs } from '../examples/bank/bank.specs';
import { startBankServer, type BankServerHandle } from '../examples/bank/bank.server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { EmbeddedEstateRunner } from './support/embedded.runner';
import { ADMIN, waitFor } from './support/estate.harness';
import { kafkaBrokers, randomTopicPrefix } from './support/infra';

type Line = Record<string, unknown> & { msg?: string; service?: string; correlationId?: string; traceId?: string };

const ALICE = { sub: 'alice', scope: 'bank:read', clearance: 'internal' };

/** The JSON lines npm start wrote on stderr so far (stdout's banner is not JSON and is passed over). */
function jsonLines(output: string): Line[] {
  return output.split('\n').flatMap((text) => {
    if (!text.startsWith('{')) return [];
    try {
      return [JSON.parse(text) as Line];
    } catch {
      return [];
    }
  });
}

/**
 * `npm start` as a real process on Kafka, with OpenTelemetry off (the default) and JSON logs at
 * debug: the lines a person reads must tie one publish together across registry, discovery and
 * edge, and a tools/call's lines must carry the ids of its request.
 */
describe('log lines carry the trace and correlation ids of their request or event, with tracing off', () => {
  let dataDir: string;
  let estate: EmbeddedEstateRunner;
  let bank: BankServerHandle;
  const lines = () => jsonLines(estate.child?.output() ?? '');

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'estate-log-correlation-'));
    estate = new EmbeddedEstateRunner(dataDir, {
      KAFKA_BROKERS: kafkaBrokers().join(','), ESTATE_TOPIC_PREFIX: randomTopicPrefix(), LOG_LEVEL: 'debug', LOG_FORMAT: 'json', OTEL_TRACES_EXPORTER: 'none',
      // Two threads whatever the machine: the ids must cross from the registry's thread to the others'.
      ESTATE_THREADS: '2',
    });
    bank = await startBankServer({ port: 0 });
    await estate.start();
    const admin = await estate.token(ADMIN);
    const registered = await fetch(`${estate.urls.registry}/v1/servers`, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` }, body: JSON.stringify({ name: 'bank', url: bank.url, owner: 'payments-team' }),
    });
    expect(registered.status).toBe(201);
  }, 120000);

  afterAll(async () => {
    await estate?.dispose();
    await bank?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("a publish's lines in registry, discovery and edge carry the caller's correlation id and one trace id", async () => {
    const correlationId = `release-${randomUUID()}`;
    const response = await fetch(`${estate.urls.registry}/v1/tools`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${await estate.token(ADMIN)}`, 'x-correlation-id': correlationId },
      body: JSON.stringify(bankSpecs('bank')[0]),
    });
    expect(response.status).toBe(201);
    // The answer quotes it back, so a caller without one of its own can still find its lines.
    expect(response.headers.get('x-correlation-id')).toBe(correlationId);

    const wanted = { registry: 'POST /v1/tools 201', discovery: 'registry event applied', 'mcp-edge': 'catalog changed' };
    const found = await waitFor(async () => {
      const mine = lines().filter((l) => l.correlationId === correlationId);
      const each = Object.entries(wanted).map(([service, msg]) => mine.find((l) => l.service === service && l.msg?.startsWith(msg)));
      return each.every(Boolean) ? (each as Line[]) : undefined;
    }, 'the publish to be logged by registry, discovery and edge', 30000);
    const [request, applied, changed] = found;
    expect(request).toMatchObject({ method: 'POST', path: '/v1/tools', status: 201 });
    expect(applied).toMatchObject({ type: 'ToolVersionPublished', tools: ['bank.lookup'], eventId: expect.any(String) });
    expect(changed).toMatchObject({ tools: ['bank.lookup'] });
    // No trace was started anywhere, yet the three agree on a trace id: it is derived from the correlation id.
    expect(request.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(new Set(found.map((l) => l.traceId))).toEqual(new Set([request.traceId]));
  });

  it("a tools/call's lines carry its session, request id and the correlation id of the HTTP request that carried it", async () => {
    await waitFor(async () => (lines().some((l) => l.service === 'mcp-edge' && (l.tools as string[] | undefined)?.includes('bank.lookup')) ? true : undefined), 'the edge to hold bank.lookup');
    const correlationId = `call-${randomUUID()}`;
    const client = new Client({ name: 'log-correlation-e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(estate.urls.mcp), {
      requestInit: { headers: { authorization: `Bearer ${await estate.token(ALICE)}`, 'x-correlation-id': correlationId } },
    }));
    try {
      const result = await client.callTool({ name: 'bank.lookup', arguments: { reference: 'PMT-771' } });
      expect(result.isError).toBeFalsy();
    } finally {
      await client.close();
    }
    const answered = await waitFor(async () => lines().find((l) => l.msg === 'tools/call answered' && l.correlationId === correlationId), 'the tools/call line');
    expect(answered).toMatchObject({
      service: 'mcp-edge', tool: 'bank.lookup', outcome: 'ok', sessionId: expect.stringMatching(/^[0-9a-f-]{36}$/), requestId: expect.anything(), traceId: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
  });

  it('a request that brings no id is given a fresh one, answered in a header and carried by its lines', async () => {
    const response = await fetch(`${estate.urls.registry}/v1/tools/bank.lookup/versions/9.9.9/retire`, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${await estate.token(ADMIN)}` }, body: JSON.stringify({ reason: 'never published' }),
    });
    expect(response.status).toBeGreaterThanOrEqual(400);
    const given = response.headers.get('x-correlation-id');
    expect(given).toMatch(/^[0-9a-f-]{36}$/);
    const line = await waitFor(async () => lines().find((l) => l.service === 'registry' && l.correlationId === given), 'the request line');
    expect(line).toMatchObject({ method: 'POST', path: '/v1/tools/:name/versions/:version/retire', status: response.status, traceId: expect.stringMatching(/^[0-9a-f]{32}$/) });
  });

  it('every stderr line stays one whole JSON object while both threads log at once', async () => {
    // Registry (main thread) and discovery and audit (second thread) answer and log side by side.
    const admin = await estate.token(ADMIN);
    const get = (url: string) => fetch(url, { headers: { authorization: `Bearer ${admin}` } }).then((r) => r.arrayBuffer());
    const urls = [`${estate.urls.registry}/v1/tools`, `${estate.urls.discovery}/v1/tools`, `${estate.urls.audit}/v1/audit?limit=5`];
    for (let round = 0; round < 5; round += 1) await Promise.all(Array.from({ length: 60 }, (_, i) => get(urls[i % urls.length])));
    const marker = 'Ctrl-C stops everything cleanly.';
    const output = estate.child?.output() ?? '';
    const after = output.slice(output.indexOf(marker) + marker.length).split('\n').filter((line) => line.trim() !== '');
    expect(after.length).toBeGreaterThan(250);
    const broken = after.filter((line) => {
      try {
        return typeof JSON.parse(line) !== 'object';
      } catch {
        return true;
      }
    });
    expect(broken).toEqual([]);
  }, 60000);
});
