import { readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { Kafka, logLevel } from 'kafkajs';
import { cloudEventType, topicName, type CloudEvent } from '@estate/events';
import { bankSpecs } from '../examples/bank/bank.specs';
import { ADMIN, http, token, waitFor } from './support/estate.harness';
import { startEstateServices, type EstateServices } from './support/estate.stack';
import { kafkaBrokers, REPO_ROOT } from './support/infra';

const ALICE = { sub: 'alice', scope: 'bank:read', clearance: 'internal' };

interface Frame { id: string; event: string; data: CloudEvent<Record<string, unknown>> }

/** An SSE subscriber over fetch (the feed needs the Authorization header, which EventSource cannot send). */
async function subscribe(url: string, bearer: string, lastEventId?: string) {
  const abort = new AbortController();
  const response = await fetch(url, { headers: { authorization: `Bearer ${bearer}`, ...(lastEventId ? { 'last-event-id': lastEventId } : {}) }, signal: abort.signal });
  expect(response.status).toBe(200);
  const frames: Frame[] = [];
  void (async () => {
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true as const }));
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const fields = Object.fromEntries(buffer.slice(0, end).split('\n').filter((l) => !l.startsWith(':')).map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 2)]));
        buffer = buffer.slice(end + 2);
        if (fields.data) frames.push({ id: fields.id, event: fields.event, data: JSON.parse(fields.data) as Frame['data'] });
      }
    }
  })();
  const until = (done: (all: Frame[]) => boolean, what: string) => waitFor(async () => (done(frames) ? frames : undefined), what, 20_000);
  return { frames, until, close: () => abort.abort() };
}

const label = (f: Frame) => `${f.data.type} ${f.data.subject ?? '-'}@${String(f.data.data.version ?? (f.data.data.spec as { version?: string } | undefined)?.version ?? '')}`;

describe('the change feed: CloudEvents over SSE, filtered and authorized (real Kafka, real HTTP)', () => {
  let stack: EstateServices;
  let feed: string;
  let admin: string;
  let alice: string;
  const subscriptions: Array<{ close(): void }> = [];
  const open = async (query: string, bearer: string, lastEventId?: string) => {
    const subscription = await subscribe(`${feed}?${query}`, bearer, lastEventId);
    subscriptions.push(subscription);
    return subscription;
  };

  beforeAll(async () => {
    stack = await startEstateServices({ name: 'feed-sse', audit: true });
    feed = `${stack.auditUrl}/v1/events/stream`;
    admin = await token(ADMIN);
    alice = await token(ALICE);
    const [lookup, transfer] = bankSpecs('bank');
    expect((await http('POST', `${stack.registryUrl}/v1/servers`, admin, { name: 'bank', url: 'http://127.0.0.1:9/mcp', owner: 'payments-team' })).status).toBe(201);
    expect((await http('POST', `${stack.registryUrl}/v1/tools`, admin, lookup)).status).toBe(201);
    // Alice (bank:read, internal clearance) may see bank.lookup but not bank.transfer (bank:write, confidential).
    expect((await http('POST', `${stack.registryUrl}/v1/tools`, admin, transfer)).status).toBe(201);
    for (const name of ['bank.lookup', 'bank.transfer']) {
      expect((await http('POST', `${stack.registryUrl}/v1/tools/${name}/versions/1.0.0/deprecate`, admin, { reason: 'moving' })).status).toBe(200);
    }
  }, 120_000);

  afterAll(async () => {
    subscriptions.forEach((s) => s.close());
    await stack?.stop();
  });

  it('an admin sees every change as a structured CloudEvent; an agent never sees a tool it may not discover', async () => {
    const all = await open('since=0', admin);
    await all.until((f) => f.length >= 5, 'five changes for the admin');
    expect(all.frames.map(label)).toEqual([
      'io.estate.server.registered -@', 'io.estate.tool.version.published bank.lookup@1.0.0', 'io.estate.tool.version.published bank.transfer@1.0.0',
      'io.estate.tool.version.deprecated bank.lookup@1.0.0', 'io.estate.tool.version.deprecated bank.transfer@1.0.0',
    ]);
    const deprecated = all.frames[3].data;
    expect(deprecated).toMatchObject({ specversion: '1.0', source: 'urn:estate:local', type: 'io.estate.tool.version.deprecated', estateactor: 'platform-admin', datacontenttype: 'application/json' });
    expect(all.frames[3].event).toBe(deprecated.type);
    // dataschema resolves (under the configured public URL; here audit's own address) and the data satisfies it.
    const schemaPath = new URL(deprecated.dataschema).pathname;
    expect(schemaPath).toBe('/v1/schemas/events/ToolVersionDeprecated/1.json');
    const schema = (await (await fetch(`${stack.auditUrl}${schemaPath}`)).json()) as object;
    const ajv = new Ajv({ strict: false });
    addFormats(ajv);
    expect(ajv.validate(schema, deprecated.data)).toBe(true);
    expect((await fetch(`${stack.auditUrl}/v1/schemas/events/NoSuchEvent/1.json`)).status).toBe(404);
    expect((await fetch(`${stack.auditUrl}/v1/schemas/events/constructor/1.json`)).status).toBe(404);

    // Alice replays from the start and follows live: bank.transfer, and the server registration, never reach her.
    const mine = await open('since=0', alice);
    await mine.until((f) => f.length >= 2, 'alice to see her two changes');
    expect((await http('POST', `${stack.registryUrl}/v1/tools/bank.transfer/versions/1.0.0/retire`, admin, { reason: 'gone' })).status).toBe(200);
    expect((await http('POST', `${stack.registryUrl}/v1/tools/bank.lookup/versions/1.0.0/retire`, admin, { reason: 'gone' })).status).toBe(200);
    await all.until((f) => f.length >= 7, 'both retirements for the admin');
    await mine.until((f) => f.length >= 3, 'alice to see bank.lookup retired');
    expect(mine.frames.map(label)).toEqual([
      'io.estate.tool.version.published bank.lookup@1.0.0', 'io.estate.tool.version.deprecated bank.lookup@1.0.0', 'io.estate.tool.version.retired bank.lookup@1.0.0',
    ]);
    // Her ids are sealed cursors, not the admin stream's positions, whose gaps would count the hidden entries.
    expect(all.frames.every((f) => /^[0-9]+$/.test(f.id))).toBe(true);
    for (const f of mine.frames) expect(f.id).toMatch(/^c1\.[A-Za-z0-9_-]{48}$/);
    // Asking for the hidden tool by name answers like asking for a tool that does not exist: an empty stream.
    const probe = await open('since=0&tools=bank.transfer', alice);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(probe.frames).toEqual([]);
  });

  it('filters by tool glob, event type and since, and names the parameter of a bad filter', async () => {
    const filtered = await open(`since=0&tools=bank.tr*&types=${cloudEventType('ToolVersionDeprecated')},ToolVersionRetired`, admin);
    await filtered.until((f) => f.length >= 2, 'the filtered changes');
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(filtered.frames.map(label)).toEqual(['io.estate.tool.version.deprecated bank.transfer@1.0.0', 'io.estate.tool.version.retired bank.transfer@1.0.0']);
    const since = await open(`since=${filtered.frames[0].id}&tools=bank.*`, admin);
    await since.until((f) => f.length >= 2, 'changes after a position');
    expect(since.frames.every((f) => Number(f.id) > Number(filtered.frames[0].id))).toBe(true);
    for (const [query, parameter] of [['types=Nope', 'types[0]'], ['tools=bad%20name', 'tools[0]'], ['since=yesterday', 'since']]) {
      const response = await fetch(`${feed}?${query}`, { headers: { authorization: `Bearer ${admin}` } });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ details: { parameter } });
    }
  });

  it('a reconnect with Last-Event-ID misses nothing and repeats nothing', async () => {
    const first = await open('since=0&tools=bank.*', admin);
    await first.until((f) => f.length >= 3, 'a first part of the feed');
    first.close();
    const seen = first.frames.slice(0, 3);
    const lookup = bankSpecs('bank')[0];
    for (const version of ['2.0.0', '3.0.0']) {
      expect((await http('POST', `${stack.registryUrl}/v1/tools`, admin, { ...lookup, version, description: `${lookup.description} (${version})` })).status).toBe(201);
    }
    const resumed = await open('tools=bank.*', admin, seen[2].id);
    const everything = await open('since=0&tools=bank.*', admin);
    await everything.until((f) => f.some((frame) => label(frame).endsWith('bank.lookup@3.0.0')), 'the whole feed');
    await resumed.until((f) => f.some((frame) => label(frame).endsWith('bank.lookup@3.0.0')), 'the resumed feed');
    expect([...seen, ...resumed.frames].map((f) => f.id)).toEqual(everything.frames.map((f) => f.id));
  });

  it('registry messages on Kafka carry CloudEvents binary-mode headers, read by a plain kafkajs consumer', async () => {
    const kafka = new Kafka({ clientId: 'feed-sse-e2e', brokers: kafkaBrokers(), logLevel: logLevel.NOTHING });
    const consumer = kafka.consumer({ groupId: `feed-sse-${Date.now()}` });
    const headers: Array<Record<string, string>> = [];
    await consumer.connect();
    try {
      await consumer.subscribe({ topic: topicName(stack.env.ESTATE_TOPIC_PREFIX, 'registryEvents'), fromBeginning: true });
      await consumer.run({
        eachMessage: async ({ message }) => {
          headers.push(Object.fromEntries(Object.entries(message.headers ?? {}).map(([k, v]) => [k, String(v)])));
        },
      });
      await waitFor(async () => (headers.length >= 5 ? true : undefined), 'registry messages', 30_000);
    } finally {
      await consumer.disconnect();
    }
    for (const h of headers) {
      expect(h).toMatchObject({ ce_specversion: '1.0', ce_source: 'urn:estate:local', 'content-type': 'application/json', ce_id: h['estate-id'], ce_type: cloudEventType(h['estate-type']) });
      expect(h.ce_dataschema).toMatch(new RegExp(`/v1/schemas/events/${h['estate-type']}/${h['estate-version']}\\.json$`));
      expect(Number.isNaN(Date.parse(h.ce_time))).toBe(false);
    }
    expect(headers.find((h) => h['estate-type'] === 'ToolVersionDeprecated')?.ce_subject).toBe('bank.lookup');
  });

  it('serves an AsyncAPI 3.0 document (audit and registry) that validates and names every feed type', async () => {
    const document = (await (await fetch(`${stack.auditUrl}/asyncapi.json`)).json()) as { asyncapi: string; components: { messages: Record<string, unknown> } };
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    const validate = ajv.compile(JSON.parse(readFileSync(path.join(REPO_ROOT, 'node_modules/@asyncapi/specs/schemas/3.0.0-without-$id.json'), 'utf8')) as object);
    expect(validate(document)).toBe(true);
    expect(Object.keys(document.components.messages)).toEqual(expect.arrayContaining(['ToolVersionDeprecatedV1CloudEvent', 'ToolCallCompletedV1', 'CatalogEntry']));
    // The registry serves the same document: where the events start.
    expect(await (await fetch(`${stack.registryUrl}/asyncapi.json`)).json()).toEqual(document);
  });
});
