import { randomUUID } from 'node:crypto';
import { decodeJwt } from 'jose';
import { topicName, type CloudEvent, type EventEnvelope } from '@estate/events';
import { createLogger, issueDevToken, KafkaEventBus } from '@estate/platform';
import { createTestDatabase, kafkaBrokers, randomTopicPrefix } from '../../../test/support/infra';
import { startAudit, type RunningAudit } from './audit.app';
import { loadAuditConfig } from './config';

const SECRET = 'audit-agent-view-int-spec-secret-0123';
const logger = createLogger('audit-agent-view-int-spec', process.env.LOG_LEVEL ?? 'silent');
const GOVERNANCE_FIELDS = ['requiredScopes', 'tenants', 'dataClassification', 'owner', 'upstream'];

let position = 0;
function envelope(type: string, data: Record<string, unknown>, stream = 'qa.echo'): EventEnvelope {
  position += 1;
  return {
    id: randomUUID(), type, version: type === 'ServerRegistered' ? 2 : 1, stream, position,
    occurredAt: new Date(Date.UTC(2025, 0, position)).toISOString(), actor: 'release-bot', correlationId: 'c', data,
  };
}

const spec = (version: string, requiredScopes: string[]) => ({
  name: 'qa.echo', version, description: 'Echoes its input.', inputSchema: { type: 'object' }, sideEffect: 'read',
  requiredScopes, tenants: ['acme'], dataClassification: 'internal', owner: 'qa-team', upstream: { server: 'qa', tool: 'echo' },
});
const scopesChanged = { path: '$.requiredScopes', kind: 'changed', breaking: true, message: 'requiredScopes differ from 2.0.0 (qa:admin)' };

// 2.0.0 needs qa:admin, which the agent lacks; 1.1.0's diff mentions that change, and 1.0.0's deprecation names 2.0.0.
const registryEvents = [
  envelope('ServerRegistered', { name: 'qa', namespace: 'qa', transport: 'stdio', command: 'qa-server', owner: 'qa-team', allowSampling: false, allowElicitation: false }, 'server:qa'),
  envelope('ToolVersionPublished', { spec: spec('1.0.0', ['qa:read']), bump: 'initial', changes: [] }),
  envelope('ToolVersionPublished', { spec: spec('2.0.0', ['qa:read', 'qa:admin']), bump: 'major', changes: [scopesChanged] }),
  envelope('ToolVersionPublished', { spec: spec('1.1.0', ['qa:read']), bump: 'minor', changes: [scopesChanged] }),
  envelope('ToolQuarantined', { name: 'qa.echo', version: '1.1.0', reason: 'upstream drifted from qa-server' }),
  envelope('ToolVersionDeprecated', { name: 'qa.echo', version: '1.0.0', reason: 'moving', replacement: '2.0.0' }),
];

type Event = CloudEvent<Record<string, unknown>>;
const label = (event: Event) => `${event.type} ${String(event.data.version ?? (event.data.spec as { version?: string }).version)}`;
const isDeprecation = (event: Event) => event.type === 'io.estate.tool.version.deprecated';

describe('the events stream shows a caller without governance scopes what the registry shows it', () => {
  let db: { url: string; drop(): Promise<void> };
  let bus: KafkaEventBus;
  let audit: RunningAudit;
  const tokens: Record<'agent' | 'publisher' | 'admin', string> = { agent: '', publisher: '', admin: '' };
  const streams: Array<{ close(): void }> = [];
  const open = (who: keyof typeof tokens, query = 'since=0', headers: Record<string, string> = {}) => {
    const stream = readStream(`${audit.url}/v1/events/stream?${query}&tools=qa.echo`, tokens[who], headers);
    streams.push(stream);
    return stream;
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    const prefix = randomTopicPrefix();
    const topic = topicName(prefix, 'registryEvents');
    bus = new KafkaEventBus({ brokers: kafkaBrokers(), clientId: 'audit-agent-view-int-spec', logger });
    await bus.ensureTopics([{ name: topic }, { name: topicName(prefix, 'calls') }]);
    await bus.publish(topic, registryEvents.map((e) => ({ key: e.stream, value: JSON.stringify(e) })));
    const config = loadAuditConfig({
      ESTATE_AUDIT_PORT: '0', ESTATE_JWT_SECRET: SECRET, ESTATE_TOPIC_PREFIX: prefix, ESTATE_AUDIT_GROUP: `audit-${randomUUID()}`,
    });
    audit = await startAudit({ ...config, databaseUrl: db.url }, bus, logger, { heartbeatMs: 500 });
    tokens.agent = await issueDevToken(SECRET, { sub: 'qa-agent', scope: 'qa:read', tenant: 'acme', clearance: 'internal' });
    tokens.publisher = await issueDevToken(SECRET, { sub: 'qa-publisher', scope: 'estate:publish qa:read', tenant: 'acme', clearance: 'internal' });
    tokens.admin = await issueDevToken(SECRET, { sub: 'admin', scope: 'estate:admin' });
  });

  afterAll(async () => {
    streams.forEach((s) => s.close());
    await audit?.stop();
    await bus?.close();
    await db?.drop();
  });

  it('an agent gets no governance fields, actor, schema, stream position, publish diff, quarantine reason or hidden replacement', async () => {
    // Frames come in feed order, so once the deprecation is there nothing before it can follow.
    const events = await open('agent').until((all) => all.some(isDeprecation));
    expect(events.map(label)).toEqual([
      'io.estate.tool.version.published 1.0.0', 'io.estate.tool.version.published 1.1.0',
      'io.estate.tool.quarantined 1.1.0', 'io.estate.tool.version.deprecated 1.0.0',
    ]);
    for (const event of events) {
      expect(event).not.toHaveProperty('estateactor');
      expect(event).not.toHaveProperty('dataschema');
      // Its gaps would count the changes hidden from the agent.
      expect(event).not.toHaveProperty('estateposition');
      expect(event.data).not.toHaveProperty('changes');
      for (const field of GOVERNANCE_FIELDS) expect(event.data.spec ?? {}).not.toHaveProperty(field);
      expect(JSON.stringify(event)).not.toMatch(/qa:admin|qa-team|release-bot|requiredScopes|2\.0\.0/);
    }
    const [first, patched, quarantined, deprecated] = events;
    expect(first).toMatchObject({ subject: 'qa.echo', data: { spec: { name: 'qa.echo', version: '1.0.0', description: 'Echoes its input.', sideEffect: 'read' }, bump: 'initial' } });
    expect(patched.data).toMatchObject({ bump: 'minor' });
    expect(quarantined.data).toEqual({ name: 'qa.echo', version: '1.1.0' });
    expect(deprecated.data).toEqual({ name: 'qa.echo', version: '1.0.0', reason: 'moving' });
  });

  it('an admin gets every event in full: actor, schema, governance fields and the publish diff', async () => {
    const events = await open('admin').until((all) => all.some(isDeprecation));
    expect(events.map(label)).toEqual([
      'io.estate.tool.version.published 1.0.0', 'io.estate.tool.version.published 2.0.0', 'io.estate.tool.version.published 1.1.0',
      'io.estate.tool.quarantined 1.1.0', 'io.estate.tool.version.deprecated 1.0.0',
    ]);
    for (const event of events) expect(event).toMatchObject({ estateactor: 'release-bot', dataschema: expect.stringMatching(/\/v1\/schemas\/events\//), estateposition: expect.any(Number) });
    expect(events[2].data).toEqual(registryEvents[3].data);
    expect(events[4].data).toEqual(registryEvents[5].data);
    expect(events[3].data).toEqual(registryEvents[4].data);
  });

  it('a publisher gets the events it sees in full, as the registry shows it every record', async () => {
    const events = await open('publisher').until((all) => all.some(isDeprecation));
    expect(events.map(label)).toEqual([
      'io.estate.tool.version.published 1.0.0', 'io.estate.tool.version.published 1.1.0',
      'io.estate.tool.quarantined 1.1.0', 'io.estate.tool.version.deprecated 1.0.0',
    ]);
    expect(events[1]).toMatchObject({ estateactor: 'release-bot', data: registryEvents[3].data });
  });

  it('sends an agent ids that show no feed position, and takes only those back to resume where it was', async () => {
    const agent = open('agent');
    const events = await agent.until((all) => all.some(isDeprecation));
    const admin = open('admin');
    await admin.until((all) => all.some(isDeprecation));
    // Positions would count what lies between two events: here the hidden 2.0.0.
    expect(admin.ids.every((id) => /^[0-9]+$/.test(id))).toBe(true);
    expect(agent.ids).toHaveLength(4);
    for (const id of agent.ids) expect(id).toMatch(/^c1\.[A-Za-z0-9_-]{48}$/);
    const [first, ...rest] = agent.ids;
    // Resuming after the first event, by Last-Event-ID or by `since`, gives the rest, each once, with the same ids.
    for (const resumed of [open('agent', '', { 'last-event-id': first }), open('agent', `since=${first}`)]) {
      expect((await resumed.until((all) => all.some(isDeprecation))).map(label)).toEqual(events.slice(1).map(label));
      expect(resumed.ids).toEqual(rest);
    }
    const refused = async (query: string, headers: Record<string, string>, token = tokens.agent) => {
      const answer = await fetch(`${audit.url}/v1/events/stream?${query}`, { headers: { authorization: `Bearer ${token}`, ...headers } });
      expect(answer.status).toBe(400);
      return ((await answer.json()) as { message: string; details: { parameter: string } });
    };
    const altered = `${first.slice(0, 10)}${first[10] === 'A' ? 'B' : 'A'}${first.slice(11)}`;
    expect(await refused('', { 'last-event-id': altered })).toMatchObject({ details: { parameter: 'Last-Event-ID' }, message: expect.stringContaining('not a cursor this feed sent') });
    expect(await refused(`since=${altered}`, {})).toMatchObject({ details: { parameter: 'since' } });
    // A position (the admin's id of the same event) is no way around the cursor.
    expect(await refused('', { 'last-event-id': admin.ids[1] })).toMatchObject({ details: { parameter: 'Last-Event-ID' }, message: expect.stringContaining('plain feed positions') });
    expect(await refused(`since=${admin.ids[1]}`, {})).toMatchObject({ details: { parameter: 'since' } });
    // A cursor is its subject's: another agent cannot resume with it.
    const other = await issueDevToken(SECRET, { sub: 'qa-other-agent', scope: 'qa:read', tenant: 'acme', clearance: 'internal' });
    expect(await refused('', { 'last-event-id': first }, other)).toMatchObject({ details: { parameter: 'Last-Event-ID' } });
  });

  it('ends a stream when the token that opened it expires, and refuses a misspelt parameter', async () => {
    const short = await issueDevToken(SECRET, { sub: 'qa-agent', scope: 'qa:read', tenant: 'acme', clearance: 'internal' }, { expiresIn: '3s' });
    const expiresAt = decodeJwt(short).exp! * 1000;
    const answer = await fetch(`${audit.url}/v1/events/stream?since=0&tools=qa.echo`, { headers: { authorization: `Bearer ${short}` } });
    expect(answer.status).toBe(200);
    const reader = (answer.body as ReadableStream<Uint8Array>).getReader();
    let text = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    // The stream carried the events until then, and ended at the expiry, not before.
    expect(text).toContain('io.estate.tool.version.deprecated');
    expect(Date.now()).toBeGreaterThanOrEqual(expiresAt);
    expect(Date.now()).toBeLessThan(expiresAt + 5000);
    const typo = await fetch(`${audit.url}/v1/events/stream?tool=qa.echo`, { headers: { authorization: `Bearer ${tokens.agent}` } });
    expect(typo.status).toBe(400);
    expect(await typo.json()).toMatchObject({ details: { parameter: 'tool' } });
  }, 30_000);
});

/** A minimal SSE reader over fetch: the CloudEvents of the frames and their ids, until a predicate holds. */
function readStream(url: string, token: string, headers: Record<string, string> = {}) {
  const abort = new AbortController();
  const response = fetch(url, { headers: { authorization: `Bearer ${token}`, ...headers }, signal: abort.signal });
  const events: Event[] = [];
  const ids: string[] = [];
  const until = async (done: (events: Event[]) => boolean, timeoutMs = 45_000): Promise<Event[]> => {
    const answer = await response;
    expect(answer.status).toBe(200);
    const reader = (answer.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    const deadline = Date.now() + timeoutMs;
    let buffer = '';
    try {
      while (!done(events)) {
        if (Date.now() > deadline) throw new Error(`stream condition not met; got ${JSON.stringify(events)}`);
        const { value, done: ended } = await reader.read();
        if (ended) throw new Error('stream ended');
        buffer += decoder.decode(value, { stream: true });
        const blocks = buffer.split('\n\n');
        buffer = blocks.pop() ?? '';
        for (const block of blocks) {
          const lines = block.split('\n');
          const data = lines.find((line) => line.startsWith('data: '));
          if (!data) continue;
          events.push(JSON.parse(data.slice('data: '.length)) as Event);
          ids.push(lines.find((line) => line.startsWith('id: '))?.slice('id: '.length) ?? '');
        }
      }
    } finally {
      reader.releaseLock();
    }
    return events;
  };
  return { until, ids, close: () => abort.abort() };
}
