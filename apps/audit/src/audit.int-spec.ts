import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { cloudEventType, topicName, type EventEnvelope } from '@estate/events';
import { createLogger, issueDevToken, KafkaEventBus } from '@estate/platform';
import { createTestDatabase, kafkaBrokers, randomTopicPrefix } from '../../../test/support/infra';
import { startAudit, type RunningAudit } from './audit.app';
import { loadAuditConfig } from './config';
import type { AuditEntryView } from './domain/audit-entry.view';

const SECRET = 'audit-int-spec-secret-0123456789';
const logger = createLogger('audit-int-spec', process.env.LOG_LEVEL ?? 'silent');

let sequence = 0;
function envelope(type: string, stream: string, data: Record<string, unknown>, occurredAt: string, actor = 'ci-bot'): EventEnvelope {
  sequence += 1;
  return { id: randomUUID(), type, version: type === 'ServerRegistered' ? 2 : 1, stream, position: sequence, occurredAt, actor, correlationId: 'c', data };
}

const published = (version: string, at: string) =>
  envelope('ToolVersionPublished', 'payments.lookup', { spec: { name: 'payments.lookup', version }, bump: 'initial', changes: [] }, at);
const call = (principal: string, version: string, outcome: string, at: string) =>
  envelope('ToolCallCompleted', principal, { principal, tool: 'payments.lookup', version, outcome, durationMs: 1, attempts: 1, repaired: 0 }, at, 'mcp-edge');

const registryEvents = [
  envelope('ServerRegistered', 'server:payments', { name: 'payments', namespace: 'payments', transport: 'streamable-http', url: 'http://p', owner: 'pay', allowSampling: false, allowElicitation: false }, '2025-01-01T00:00:00Z'),
  published('1.0.0', '2025-01-01T00:01:00Z'),
  published('2.0.0', '2025-01-02T00:00:00Z'),
  envelope('ToolVersionDeprecated', 'payments.lookup', { name: 'payments.lookup', version: '1.0.0', reason: 'use 2.0.0' }, '2025-01-03T00:00:00Z'),
];
const LONG_NAME = `probe.${'x'.repeat(294)}`;
const callEvents = [
  call('agent-a', '1.0.0', 'ok', '2025-01-04T00:00:00Z'),
  call('agent-a', '1.0.0', 'tool_error', '2025-01-04T00:01:00Z'),
  call('agent-a', '1.0.0', 'ok', '2025-01-04T00:02:00Z'),
  call('agent-b', '2.0.0', 'ok', '2025-01-05T00:00:00Z'),
  envelope('ToolCallRefused', 'agent-b', { principal: 'agent-b', tool: 'payments.lookup', version: '1.0.0', reason: 'invalid_arguments', detail: 'x' }, '2025-01-05T00:01:00Z', 'mcp-edge'),
  // A name longer than the trail's keys (an agent probing with a 300-character name): stored as its bounded key.
  envelope('ToolCallCompleted', 'agent-c', { principal: 'agent-c', tool: LONG_NAME, version: '1.0.0', outcome: 'ok', durationMs: 1, attempts: 1, repaired: 0 }, '2025-01-06T00:00:00Z', 'mcp-edge'),
];
/** Audit follows the deprecation with an entry naming its callers (deprecation/). */
const TOTAL = registryEvents.length + callEvents.length + 1;
const deprecationId = registryEvents[3].id;

describe('audit service on PostgreSQL and Kafka', () => {
  let db: { url: string; drop(): Promise<void> };
  let bus: KafkaEventBus;
  let audit: RunningAudit;
  let topics: { registry: string; calls: string };
  let auditor: string;

  const get = (path: string, token = auditor, headers: Record<string, string> = {}) =>
    fetch(`${audit.url}${path}`, { headers: { authorization: `Bearer ${token}`, ...headers } });
  const entries = async (query: string): Promise<AuditEntryView[]> => ((await (await get(`/v1/audit?${query}`)).json()) as { entries: AuditEntryView[] }).entries;

  beforeAll(async () => {
    db = await createTestDatabase();
    const prefix = randomTopicPrefix();
    topics = { registry: topicName(prefix, 'registryEvents'), calls: topicName(prefix, 'calls') };
    bus = new KafkaEventBus({ brokers: kafkaBrokers(), clientId: 'audit-int-spec', logger });
    await bus.ensureTopics([{ name: topics.registry }, { name: topics.calls }]);
    await bus.publish(topics.registry, registryEvents.map((e) => ({ key: e.stream, value: JSON.stringify(e) })));
    // The first call is delivered twice, and a message that is no envelope sits in the log.
    const calls = [...callEvents, callEvents[0]].map((e) => ({ key: e.stream, value: JSON.stringify(e) }));
    await bus.publish(topics.calls, [...calls, { key: 'junk', value: '{"not":"an envelope"}' }]);
    const config = loadAuditConfig({
      ESTATE_AUDIT_PORT: '0', ESTATE_JWT_SECRET: SECRET, ESTATE_TOPIC_PREFIX: prefix, ESTATE_AUDIT_GROUP: `audit-${randomUUID()}`,
    });
    audit = await startAudit({ ...config, databaseUrl: db.url }, bus, logger, { heartbeatMs: 500 });
    auditor = await issueDevToken(SECRET, { sub: 'auditor', scope: 'estate:audit' });
    await waitFor(async () => (await entries('limit=500')).length >= TOTAL, 45_000);
  });

  afterAll(async () => {
    await audit?.stop();
    await bus?.close();
    await db?.drop();
  });

  it('needs a token and the audit scope', async () => {
    expect((await fetch(`${audit.url}/v1/audit`)).status).toBe(401);
    const outsider = await issueDevToken(SECRET, { sub: 'agent-a', scope: 'payments:read' });
    expect((await get('/v1/audit', outsider)).status).toBe(403);
    const admin = await issueDevToken(SECRET, { sub: 'root', scope: 'estate:admin' });
    expect((await get('/v1/audit/verify', admin)).status).toBe(200);
  });

  it('records each event once, newest first, skipping what is not an envelope', async () => {
    const all = await entries('limit=500');
    expect(all).toHaveLength(TOTAL);
    expect(new Set(all.map((e) => e.eventId))).toEqual(new Set([...[...registryEvents, ...callEvents].map((e) => e.id), `${deprecationId}/callers`]));
    const seqs = all.map((e) => e.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => b - a));
  });

  it('finds an entry of a name longer than its key by the name or by the stored key', async () => {
    const [byName] = await entries(`tool=${LONG_NAME}`);
    expect(byName).toMatchObject({ principal: 'agent-c' });
    expect(byName.tool).not.toBe(LONG_NAME);
    expect((await entries(`tool=${encodeURIComponent(byName.tool as string)}`)).map((e) => e.principal)).toEqual(['agent-c']);
  });

  it('filters by tool, version, principal, type, outcome and time', async () => {
    expect((await entries('principal=agent-a')).map((e) => e.outcome)).toEqual(['ok', 'tool_error', 'ok']);
    expect((await entries('principal=agent-a&outcome=tool_error')).map((e) => e.outcome)).toEqual(['tool_error']);
    // An outcome's class (before the colon) matches every reason of that class.
    expect((await entries('outcome=refused')).map((e) => e.outcome)).toEqual(['refused:invalid_arguments']);
    expect(await entries('outcome=refused:invalid_arguments')).toHaveLength(1);
    expect(await entries('tool=payments.lookup&version=1.0.0')).toHaveLength(7);
    const [callers] = await entries('type=ToolVersionDeprecationCallers');
    // Which callers it names depends on whether the calls log was read first; edge-deprecation.e2e-spec.ts checks them.
    expect(callers).toMatchObject({ principal: 'estate:audit', tool: 'payments.lookup', version: '1.0.0', data: { deprecationEventId: deprecationId } });
    expect((await entries('type=ToolCallRefused'))[0]).toMatchObject({ principal: 'agent-b', outcome: 'refused:invalid_arguments' });
    const registered = await entries('type=ServerRegistered');
    expect(registered).toEqual([expect.objectContaining({ stream: 'payments', tool: null, principal: 'ci-bot', outcome: null })]);
    const window = await entries('from=2025-01-02T00:00:00Z&to=2025-01-04T00:01:00Z');
    // Seq order follows consumption, which interleaves the two topics: compare times as a set.
    expect(window.map((e) => e.occurredAt).sort()).toEqual(['2025-01-02T00:00:00.000Z', '2025-01-03T00:00:00.000Z', '2025-01-04T00:00:00.000Z']);
  });

  it('pages with an opaque cursor without skipping or repeating', async () => {
    const seen: number[] = [];
    let cursor: string | null = null;
    do {
      const response = await get(`/v1/audit?limit=4${cursor ? `&cursor=${cursor}` : ''}`);
      const page = (await response.json()) as { entries: AuditEntryView[]; nextCursor: string | null };
      seen.push(...page.entries.map((e) => e.seq));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual((await entries('limit=500')).map((e) => e.seq));
  });

  it('answers 400 naming the parameter for a bad cursor, limit, date, type, outcome or version', async () => {
    for (const [query, parameter] of [
      ['cursor=bogus', 'cursor'], ['limit=501', 'limit'], ['from=tomorrow', 'from'],
      ['outcome=bogus', 'outcome'], ['type=ToolVersionPublish', 'type'], ['tol=bank.lookup', 'tol'], ['principle=alice', 'principle'], ['outcome=refused:bogus', 'outcome'], ['version=notsemver', 'version'], ['version=%5E1.0.0', 'version'],
      ['from=2026-12-02T03:00:00', 'from'], ['to=2026-12-02T03:00:00', 'to'], ['principal=', 'principal'], ['tool=payments.lookup&version=', 'version'],
    ]) {
      const response = await get(`/v1/audit?${query}`);
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ error: 'INVALID_QUERY', message: expect.stringContaining(`"${parameter}"`), details: { parameter } });
      // The exports read the same filters.
      expect((await get(`/v1/audit?${query}&format=ndjson`)).status).toBe(400);
    }
    // The same instants with their zone written out select the same entries.
    const window = await entries('from=2025-01-02T01:00:00%2B01:00&to=2025-01-03T19:01:00-05:00');
    expect(window.map((e) => e.occurredAt).sort()).toEqual(['2025-01-02T00:00:00.000Z', '2025-01-03T00:00:00.000Z', '2025-01-04T00:00:00.000Z']);
    expect(await entries('outcome=upstream_error&version=2.0.0')).toEqual([]);
    // `to` is exclusive: an entry at exactly that instant belongs to the next range.
    expect((await entries('from=2025-01-03T00:00:00Z&to=2025-01-04T00:00:00Z')).map((e) => e.occurredAt)).toEqual(['2025-01-03T00:00:00.000Z']);
    expect(await entries('from=2025-01-03T00:00:00Z&to=2025-01-03T00:00:00Z')).toEqual([]);
  });

  it('answers 400 naming the parameter or path for a malformed feed filter or webhook, and subscribes nothing', async () => {
    for (const [query, parameter] of [['tools=qa..*', 'tools[0]'], ['tools=payments.*,*.lookup', 'tools[1]'], ['since=2026-12-02T03:00:00', 'since']]) {
      const response = await get(`/v1/events/stream?${query}`);
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ error: 'INVALID_PARAMETER', details: { parameter } });
    }
    const admin = await issueDevToken(SECRET, { sub: 'root', scope: 'estate:admin' });
    const subscribe = (body: object) => fetch(`${audit.url}/v1/subscriptions`, {
      method: 'POST', headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' }, body: JSON.stringify(body),
    });
    for (const [body, path] of [
      [{ url: 'https://hooks.example.com/x', filter: { tools: ['qa..*'] } }, 'filter.tools[0]'],
      [{ url: 'http://[2002:7f00:1::]/x' }, 'url'],
      [{ url: 'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/x' }, 'url'],
    ] as const) {
      const response = await subscribe(body);
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ error: 'INVALID_SUBSCRIPTION', details: { path } });
    }
    expect(await (await get('/v1/subscriptions', admin)).json()).toEqual({ subscriptions: [] });
    const stream = await openStream(`${audit.url}/v1/events/stream?tools=payments.*,payments.look*&since=2025-01-01T00:00:00%2B00:00`, auditor, '');
    stream.close();
  });

  it('advertises the address it listens on when ESTATE_AUDIT_PUBLIC_URL is not set (ESTATE_AUDIT_PORT=0 here)', async () => {
    const document = (await (await fetch(`${audit.url}/asyncapi.json`)).json()) as { servers: { audit: { host: string } } };
    expect(document.servers.audit.host).toBe(new URL(audit.url).host);
    const answer = await fetch(`${audit.url}/v1/schemas/events/ToolVersionRetired/1.json`);
    expect(answer.headers.get('content-type')).toMatch(/^application\/schema\+json/);
    const schema = (await answer.json()) as { $id: string };
    expect(schema.$id).toBe(`${audit.url}/v1/schemas/events/ToolVersionRetired/1.json`);
    // A missing schema is a refusal like any other: problem JSON, not a schema.
    const missing = await fetch(`${audit.url}/v1/schemas/events/Nope/1.json`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('verifies an intact chain, complete with the one junk message dead-lettered', async () => {
    expect(await (await get('/v1/audit/verify')).json()).toMatchObject({ ok: true, chainOk: true, entries: TOTAL, complete: true, deadLetters: 1 });
  });

  it('lists who called a tool version, with counts and the last call', async () => {
    const body = await (await get('/v1/tools/payments.lookup/callers?version=1.0.0')).json();
    expect(body).toEqual({
      tool: 'payments.lookup',
      version: '1.0.0',
      callers: [
        { principal: 'agent-b', version: '1.0.0', calls: 1, refused: 1, lastCallAt: '2025-01-05T00:01:00.000Z' },
        { principal: 'agent-a', version: '1.0.0', calls: 3, refused: 0, lastCallAt: '2025-01-04T00:02:00.000Z' },
      ],
    });
    const all = (await (await get('/v1/tools/payments.lookup/callers')).json()) as { callers: unknown[] };
    expect(all.callers).toHaveLength(3);
  });

  it('streams registry events: a replay after Last-Event-ID, then live ones', async () => {
    const stream = await openStream(`${audit.url}/v1/events/stream`, auditor, '0');
    try {
      // `until` hands back the live array; copy the replay before reading on.
      const replayed = (await stream.until((frames) => frames.length >= registryEvents.length)).slice(0, registryEvents.length);
      expect(replayed.map((f) => f.event)).toEqual(registryEvents.map((e) => cloudEventType(e.type)));
      const retired = envelope('ToolVersionRetired', 'payments.lookup', { name: 'payments.lookup', version: '1.0.0', reason: 'gone' }, '2025-01-06T00:00:00Z');
      await bus.publish(topics.registry, [{ key: retired.stream, value: JSON.stringify(retired) }]);
      const frames = await stream.until((all) => all.some((f) => f.event === 'io.estate.tool.version.retired'));
      const live = frames.find((f) => f.event === 'io.estate.tool.version.retired');
      expect(JSON.parse(live?.data ?? '{}')).toMatchObject({
        specversion: '1.0', id: retired.id, subject: 'payments.lookup', data: { version: '1.0.0' },
        // The port audit was given at start-up, not the default 8003.
        dataschema: `${audit.url}/v1/schemas/events/ToolVersionRetired/1.json`,
      });
      expect(Number(live?.id)).toBeGreaterThan(Number(replayed[replayed.length - 1].id));
      expect(frames.map((f) => f.event)).not.toContain('io.estate.tool.call.completed');
      await stream.until(() => stream.heartbeats() > 0);
    } finally {
      stream.close();
    }
  });

  it('refuses changes at the database, and verify catches a change made around the guard', async () => {
    const client = new Client({ connectionString: db.url });
    await client.connect();
    try {
      await expect(client.query(`UPDATE audit.entries SET principal = 'mallory'`)).rejects.toThrow(/append-only/);
      await expect(client.query(`DELETE FROM audit.entries`)).rejects.toThrow(/append-only/);
      const [target] = (await entries('principal=agent-b&type=ToolCallCompleted'));
      await client.query(`ALTER TABLE audit.entries DISABLE TRIGGER entries_append_only`);
      await client.query(`UPDATE audit.entries SET outcome = 'tool_error' WHERE seq = $1`, [target.seq]);
      expect(await (await get('/v1/audit/verify')).json()).toMatchObject({ ok: false, firstBrokenSeq: target.seq });
    } finally {
      await client.end();
    }
  });
});

async function waitFor(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

interface Frame { id?: string; event?: string; data?: string }

/** A minimal SSE reader over fetch: collects frames until a predicate holds. */
async function openStream(url: string, token: string, lastEventId: string) {
  const abort = new AbortController();
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}`, 'last-event-id': lastEventId }, signal: abort.signal });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const frames: Frame[] = [];
  let buffer = '';
  let heartbeats = 0;
  const until = async (done: (frames: Frame[]) => boolean, timeoutMs = 20_000): Promise<Frame[]> => {
    const deadline = Date.now() + timeoutMs;
    while (!done(frames)) {
      if (Date.now() > deadline) throw new Error(`stream condition not met; got ${JSON.stringify(frames)}`);
      const { value, done: ended } = await reader.read();
      if (ended) throw new Error('stream ended');
      buffer += decoder.decode(value, { stream: true });
      const blocks = buffer.split('\n\n');
      buffer = blocks.pop() ?? '';
      for (const block of blocks) {
        const frame: Frame = {};
        for (const line of block.split('\n')) {
          const match = /^(id|event|data): (.*)$/.exec(line);
          if (match) frame[match[1] as keyof Frame] = match[2];
        }
        if (frame.event) frames.push(frame);
        else if (block.startsWith(': heartbeat')) heartbeats += 1;
      }
    }
    return frames;
  };
  return { until, heartbeats: () => heartbeats, close: () => abort.abort() };
}
