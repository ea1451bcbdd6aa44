import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from 'pg';
import type { Principal } from '@estate/contracts';
import { topicName, type CloudEvent, type EventEnvelope } from '@estate/events';
import { createLogger, issueDevToken, KafkaEventBus } from '@estate/platform';
import { createTestDatabase, kafkaBrokers, randomTopicPrefix } from '../../../test/support/infra';
import { startAudit } from './audit.app';
import { loadAuditConfig } from './config';
import { feedViewerOf } from './domain/feed.visibility';
import { FeedCursorSeal } from './stream/feed-cursor.seal';
import { feedIdsFor } from './stream/feed.ids';

const SECRET = 'audit-positions-int-spec-secret-0123';
const logger = createLogger('audit-positions-int-spec', process.env.LOG_LEVEL ?? 'silent');
const AGENT: Principal = { id: 'qa-agent', tenant: 'acme', scopes: ['qa:read'], clearance: 'internal' };

let position = 0;
function envelope(type: string, data: Record<string, unknown>, occurredAt: string, stream = String(data.name ?? (data.spec as { name?: string })?.name)): EventEnvelope {
  position += 1;
  return { id: randomUUID(), type, version: type === 'ServerRegistered' ? 2 : 1, stream, position, occurredAt, actor: 'release-bot', correlationId: 'c', data };
}
const spec = (name: string, version: string) => ({
  name, version, description: 'A tool.', inputSchema: { type: 'object' }, sideEffect: 'read',
  requiredScopes: ['qa:read'], tenants: ['acme'], dataClassification: 'internal', owner: 'qa-team', upstream: { server: 'qa', tool: name },
});
const published = (name: string, version: string, at: string) => envelope('ToolVersionPublished', { spec: spec(name, version), bump: 'initial', changes: [] }, at);

// The registry's clock stepped back an hour between the first publish and the three changes after it.
const registryEvents = [
  envelope('ServerRegistered', { name: 'qa', namespace: 'qa', transport: 'stdio', command: 'qa-server', owner: 'qa-team', allowSampling: false, allowElicitation: false }, '2025-12-02T10:00:00.000Z', 'server:qa'),
  published('qa.s1', '1.0.0', '2025-12-02T10:04:43.289Z'),
  published('qa.s1', '1.1.0', '2025-12-02T09:04:57.270Z'),
  published('qa.s2', '1.0.0', '2025-12-02T09:04:57.280Z'),
  envelope('ToolVersionDeprecated', { name: 'qa.s1', version: '1.0.0', reason: 'moving' }, '2025-12-02T09:04:57.290Z'),
];
const EVERY_CHANGE = ['published qa.s1@1.0.0', 'published qa.s1@1.1.0', 'published qa.s2@1.0.0', 'deprecated qa.s1@1.0.0'];
// Audit follows the deprecation with its callers, recorded at audit's own time: left out here.
const CHANGES = 'tools=qa.s*&types=ToolVersionPublished,ToolVersionDeprecated,ToolVersionRetired';

type Event = CloudEvent<{ version?: string; spec?: { version: string } }>;
const label = (event: Event) => `${event.type.replace(/^io\.estate\.tool\.version\./, '')} ${event.subject}@${event.data.version ?? event.data.spec?.version}`;

async function startWithEvents(events: EventEnvelope[], env: Record<string, string> = {}) {
  const db = await createTestDatabase();
  const prefix = randomTopicPrefix();
  const topic = topicName(prefix, 'registryEvents');
  const bus = new KafkaEventBus({ brokers: kafkaBrokers(), clientId: 'audit-positions-int-spec', logger });
  await bus.ensureTopics([{ name: topic }, { name: topicName(prefix, 'calls') }]);
  await bus.publish(topic, events.map((e) => ({ key: e.stream, value: JSON.stringify(e) })));
  const config = { ...loadAuditConfig({ ESTATE_AUDIT_PORT: '0', ESTATE_JWT_SECRET: SECRET, ESTATE_TOPIC_PREFIX: prefix, ESTATE_AUDIT_GROUP: `audit-${randomUUID()}`, ...env }), databaseUrl: db.url };
  const start = () => startAudit(config, bus, logger, { heartbeatMs: 300 });
  return { db, bus, topic, start, audit: await start() };
}

describe('where the change feed and webhooks start: a time by discovery\'s at-rule, and no position past the end', () => {
  let running: Awaited<ReturnType<typeof startWithEvents>>;
  let admin: string;
  let agent: string;
  const streams: Array<{ close(): void }> = [];
  const receivers: Receiver[] = [];
  const open = (query: string, token = admin, headers: Record<string, string> = {}) => {
    const stream = readStream(`${running.audit.url}/v1/events/stream?${query}`, token, headers);
    streams.push(stream);
    return stream;
  };
  const refused = async (query: string, headers: Record<string, string> = {}, token = admin) => {
    const answer = await fetch(`${running.audit.url}/v1/events/stream?${query}`, { headers: { authorization: `Bearer ${token}`, ...headers } });
    expect(answer.status).toBe(400);
    return (await answer.json()) as { error: string; message: string; details: { parameter: string } };
  };
  const subscribe = (body: object) => fetch(`${running.audit.url}/v1/subscriptions`, {
    method: 'POST', headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' }, body: JSON.stringify(body),
  });

  beforeAll(async () => {
    running = await startWithEvents(registryEvents, { ESTATE_WEBHOOK_ALLOW: '127.0.0.0/8', ESTATE_WEBHOOK_POLL_MS: '100' });
    admin = await issueDevToken(SECRET, { sub: 'admin', scope: 'estate:admin' });
    agent = await issueDevToken(SECRET, { sub: AGENT.id, scope: 'qa:read', tenant: 'acme', clearance: 'internal' });
    await open('since=0').until((all) => all.length >= registryEvents.length);
  });

  afterAll(async () => {
    streams.forEach((s) => s.close());
    for (const receiver of receivers) await receiver.close();
    await running?.audit.stop();
    await running?.bus.close();
    await running?.db.drop();
  });

  it('since=<time> starts at the first change after that time and sends every later one, whatever its own time', async () => {
    for (const since of ['2025-12-02T10:04:43.000Z', '2025-12-02T09:04:57.275Z']) {
      const stream = open(`since=${since}&${CHANGES}`);
      expect((await stream.until((all) => all.length >= EVERY_CHANGE.length, 10_000)).map(label)).toEqual(EVERY_CHANGE);
    }
    // Past every recorded time: the prefix at that instant is the whole log, so the stream starts at its end,
    // and a change recorded later comes even though a clock set back stamps it earlier.
    const after = open(`since=2025-12-02T10:05:00.000Z&${CHANGES}`);
    await after.until(() => after.connected(), 10_000);
    const late = envelope('ToolVersionRetired', { name: 'qa.s2', version: '1.0.0', reason: 'gone' }, '2025-12-02T09:05:00.000Z');
    await running.bus.publish(running.topic, [{ key: late.stream, value: JSON.stringify(late) }]);
    expect((await after.until((all) => all.length >= 1, 10_000)).map(label)).toEqual(['retired qa.s2@1.0.0']);
  });

  it('a webhook with filter.since as a time gets the same changes', async () => {
    const receiver = await Receiver.start('answer');
    receivers.push(receiver);
    expect((await subscribe({ url: receiver.url, filter: { tools: ['qa.s*'], types: ['ToolVersionPublished', 'ToolVersionDeprecated'], since: '2025-12-02T10:04:43.000Z' } })).status).toBe(201);
    await waitFor(() => receiver.events.length >= EVERY_CHANGE.length, 'four deliveries');
    expect(receiver.events.map(label).sort()).toEqual([...EVERY_CHANGE].sort());
  });

  it('refuses a resume point past the end of the feed, saying where it ends, and a time in the future', async () => {
    const beyond = await refused('', { 'last-event-id': '99999' });
    expect(beyond).toMatchObject({ error: 'INVALID_PARAMETER', details: { parameter: 'Last-Event-ID' }, message: expect.stringMatching(/beyond the end of the feed \(\d+\)/) });
    expect(await refused('since=99999')).toMatchObject({ details: { parameter: 'since' }, message: expect.stringContaining('beyond the end of the feed') });
    expect(await refused('lastEventId=99999')).toMatchObject({ details: { parameter: 'lastEventId' } });
    // A cursor sealed for a position past the end (from before a reset) is refused without telling the agent where the end is.
    const cursor = feedIdsFor(new FeedCursorSeal(SECRET), AGENT, feedViewerOf(AGENT)).idOf(99_999);
    const sealed = await refused('', { 'last-event-id': cursor }, agent);
    expect(sealed).toMatchObject({ details: { parameter: 'Last-Event-ID' }, message: expect.stringContaining('beyond the end of the feed:') });
    expect(sealed.message).not.toMatch(/[0-9]{2,}/);
    expect(await refused('since=2999-01-01T00:00:00Z')).toMatchObject({ details: { parameter: 'since' }, message: expect.stringContaining('must not be later than now') });
    // A clock a few seconds fast is not the future.
    const soon = open(`since=${new Date(Date.now() + 5_000).toISOString()}`);
    await soon.until(() => soon.connected(), 10_000);

    const hook = { url: 'http://127.0.0.1:1/hook' };
    for (const since of [100_000, '2999-01-01T00:00:00Z']) {
      const answer = await subscribe({ ...hook, filter: { since } });
      expect(answer.status).toBe(400);
      expect(await answer.json()).toMatchObject({ error: 'INVALID_SUBSCRIPTION', details: { path: 'filter.since' } });
    }
    const listed = (await (await fetch(`${running.audit.url}/v1/subscriptions`, { headers: { authorization: `Bearer ${admin}` } })).json()) as { subscriptions: Array<{ url: string }> };
    expect(listed.subscriptions.map((s) => s.url)).not.toContain(hook.url);
  });

  it('names a malformed id where it came from: the query parameter as given, or the header', async () => {
    expect(await refused('lastEventId=abc')).toMatchObject({ error: 'INVALID_PARAMETER', details: { parameter: 'lastEventId' }, message: expect.stringContaining('"lastEventId"') });
    expect(await refused('', { 'last-event-id': 'abc' })).toMatchObject({ error: 'INVALID_PARAMETER', details: { parameter: 'Last-Event-ID' } });
  });
});

describe('stopping audit with a webhook delivery in flight', () => {
  let running: Awaited<ReturnType<typeof startWithEvents>>;
  let receiver: Receiver;

  afterAll(async () => {
    await running?.audit.stop();
    await receiver?.close();
    await running?.bus.close();
    await running?.db.drop();
  });

  it('aborts it at once without counting an attempt, sends it again after the restart, and records the version delivered', async () => {
    running = await startWithEvents(registryEvents.slice(0, 2), { ESTATE_WEBHOOK_ALLOW: '127.0.0.0/8', ESTATE_WEBHOOK_POLL_MS: '100', ESTATE_WEBHOOK_TIMEOUT_MS: '20000' });
    const admin = await issueDevToken(SECRET, { sub: 'admin', scope: 'estate:admin' });
    receiver = await Receiver.start('hang');
    const created = await fetch(`${running.audit.url}/v1/subscriptions`, {
      method: 'POST', headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: receiver.url, filter: { tools: ['qa.s1'], since: 0 } }),
    });
    expect(created.status).toBe(201);
    await waitFor(() => receiver.requests.length === 1, 'the delivery to reach the receiver');
    const stopping = Date.now();
    await running.audit.stop();
    expect(Date.now() - stopping).toBeLessThan(2_000);
    const client = new Client({ connectionString: running.db.url });
    await client.connect();
    const rows = (await client.query('SELECT state, attempts FROM audit.webhook_deliveries').finally(() => client.end())).rows as unknown[];
    expect(rows).toEqual([{ state: 'pending', attempts: 0 }]);

    receiver.mode = 'answer';
    running.audit = await running.start();
    await waitFor(() => receiver.events.length === 1, 'the delivery sent again');
    expect(receiver.requests[1]['webhook-id']).toBe(receiver.requests[0]['webhook-id']);
    const trail = async () => ((await (await fetch(`${running.audit.url}/v1/audit?type=WebhookDelivered&tool=qa.s1&version=1.0.0`, { headers: { authorization: `Bearer ${admin}` } })).json()) as { entries: unknown[] }).entries;
    await waitFor(async () => (await trail()).length === 1, 'the delivery in the trail under its version');
  }, 60_000);
});

/** A webhook receiver on a real socket: answers 204, or (`hang`) takes the request and never answers. */
class Receiver {
  readonly requests: IncomingHttpHeaders[] = [];
  readonly events: Event[] = [];
  private readonly hanging: ServerResponse[] = [];
  url = '';

  private constructor(public mode: 'answer' | 'hang', private readonly server: Server) {}

  static async start(mode: 'answer' | 'hang'): Promise<Receiver> {
    const receiver: Receiver = new Receiver(mode, createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => { body += chunk.toString('utf8'); });
      req.on('end', () => {
        receiver.requests.push(req.headers);
        if (receiver.mode === 'hang') return void receiver.hanging.push(res);
        receiver.events.push(JSON.parse(body) as Event);
        res.writeHead(204).end();
      });
    }));
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    receiver.url = `http://127.0.0.1:${(receiver.server.address() as AddressInfo).port}/hook`;
    return receiver;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

async function waitFor(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A minimal SSE reader over fetch: the CloudEvents of the frames, read until a predicate holds. */
function readStream(url: string, token: string, headers: Record<string, string>) {
  const abort = new AbortController();
  const response = fetch(url, { headers: { authorization: `Bearer ${token}`, ...headers }, signal: abort.signal });
  const events: Event[] = [];
  let connected = false;
  let buffer = '';
  const until = async (done: (events: Event[]) => boolean, timeoutMs = 20_000): Promise<Event[]> => {
    const answer = await response;
    expect(answer.status).toBe(200);
    const reader = (answer.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    const deadline = Date.now() + timeoutMs;
    try {
      while (!done(events)) {
        if (Date.now() > deadline) throw new Error(`stream condition not met; got ${JSON.stringify(events.map(label))}`);
        const { value, done: ended } = await reader.read();
        if (ended) throw new Error('stream ended');
        buffer += decoder.decode(value, { stream: true });
        const blocks = buffer.split('\n\n');
        buffer = blocks.pop() ?? '';
        for (const block of blocks) {
          if (block.startsWith(': connected')) connected = true;
          const data = block.split('\n').find((line) => line.startsWith('data: '));
          if (data) events.push(JSON.parse(data.slice('data: '.length)) as Event);
        }
      }
    } finally {
      reader.releaseLock();
    }
    return events;
  };
  return { until, connected: () => connected, close: () => abort.abort() };
}
