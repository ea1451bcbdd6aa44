import { randomUUID } from 'node:crypto';
import { topicName, type EventEnvelope } from '@estate/events';
import { createLogger, KafkaEventBus } from '@estate/platform';
import { createTestDatabase, kafkaBrokers, randomTopicPrefix } from '../../../../test/support/infra';
import { startAudit, type RunningAudit } from '../audit.app';
import { loadAuditConfig } from '../config';
import { toAuditEntry, type AuditEntryContent } from '../domain/audit-entry.mapper';
import { AuditRepository } from '../store/audit.repository';
import { storableEntry } from '../store/storable-entry';
import { DeprecationCallersRecorder } from './deprecation-callers.recorder';

const logger = createLogger('deprecation-callers-int-spec', process.env.LOG_LEVEL ?? 'silent');
const DAY = 86_400_000;

describe('the callers of a deprecated version, recorded after it in the trail (PostgreSQL)', () => {
  let db: { url: string; drop(): Promise<void> };
  let bus: KafkaEventBus;
  let audit: RunningAudit;
  let repo: AuditRepository;
  let registryTopic: string;
  const append = (content: AuditEntryContent) => repo.appendOne(content, { notify: true });
  const recorder = () => new DeprecationCallersRecorder(repo.db, append, { registryTopic, windowDays: 30, intervalMs: 60_000, settleMs: 0 }, logger);
  const envelope = (type: string, stream: string, data: Record<string, unknown>, at: number, actor: string): EventEnvelope => ({
    id: randomUUID(), type, version: 1, stream, position: 1, occurredAt: new Date(at).toISOString(), actor, correlationId: 'c', data,
  });
  const call = (principal: string, version: string, at: number, refused = false, tenant?: string) => storableEntry(toAuditEntry('calls', 'calls', envelope(
    refused ? 'ToolCallRefused' : 'ToolCallCompleted', principal,
    {
      ...(refused ? { principal, tool: 'crm.note', version, reason: 'invalid_arguments', detail: 'x' } : { principal, tool: 'crm.note', version, outcome: 'ok', durationMs: 1, attempts: 1, repaired: 0 }),
      ...(tenant === undefined ? {} : { tenant }),
    },
    at, 'mcp-edge',
  )));

  beforeAll(async () => {
    db = await createTestDatabase();
    const prefix = randomTopicPrefix();
    registryTopic = topicName(prefix, 'registryEvents');
    bus = new KafkaEventBus({ brokers: kafkaBrokers(), clientId: 'deprecation-callers-int-spec', logger });
    await bus.ensureTopics([{ name: registryTopic }, { name: topicName(prefix, 'calls') }]);
    const config = loadAuditConfig({ ESTATE_AUDIT_PORT: '0', ESTATE_JWT_SECRET: 'deprecation-callers-secret-0123456', ESTATE_TOPIC_PREFIX: prefix, ESTATE_AUDIT_GROUP: `audit-${randomUUID()}` });
    audit = await startAudit({ ...config, databaseUrl: db.url }, bus, logger, { heartbeatMs: 500 });
    repo = audit.app.get(AuditRepository);
  });

  afterAll(async () => {
    await audit?.stop();
    await bus?.close();
    await db?.drop();
  });

  it('names each principal whose calls reached the version in the window, once, however many instances answer', async () => {
    const now = Date.now();
    await append(call('alice', '1.0.0', now - 1 * DAY));
    await append(call('alice', '1.0.0', now - 3 * DAY));
    await append(call('dave', '1.0.0', now - 2 * DAY, true));
    // The same subject in another tenant is another caller to warn.
    await append(call('alice', '1.0.0', now - 4 * DAY, false, 'globex'));
    await append(call('bob', '1.0.0', now - 40 * DAY));
    await append(call('carol', '1.1.0', now - 1 * DAY));
    const deprecation = envelope('ToolVersionDeprecated', 'crm.note', { name: 'crm.note', version: '1.0.0', reason: 'use 1.1.0' }, now, 'owner');
    await append(storableEntry(toAuditEntry('registry', registryTopic, deprecation)));

    // Two audit instances (and the app's own recorder) answer the same deprecation at once.
    await Promise.all([recorder().sweep(), recorder().sweep()]);
    const { entries } = await repo.query({ type: 'ToolVersionDeprecationCallers', limit: 10 });
    expect(entries).toHaveLength(1);
    const [followUp] = entries;
    expect(followUp).toMatchObject({ eventId: `${deprecation.id}/callers`, topic: registryTopic, tool: 'crm.note', version: '1.0.0', principal: 'estate:audit' });
    expect(followUp.payload.data).toMatchObject({
      name: 'crm.note', version: '1.0.0', deprecationEventId: deprecation.id, windowDays: 30, total: 3,
      from: new Date(now - 30 * DAY).toISOString(),
      callers: [
        { principal: 'alice', calls: 2, lastCallAt: new Date(now - DAY).toISOString() }, { principal: 'dave', calls: 1 },
        { principal: 'alice', tenant: 'globex', calls: 1, lastCallAt: new Date(now - 4 * DAY).toISOString() },
      ],
    });
    expect((followUp.payload.data as { callers: object[] }).callers[0]).not.toHaveProperty('tenant');
    // GET /v1/tools/{name}/callers (all time, so bob too) tells them apart the same way.
    expect((await repo.callers('crm.note', '1.0.0')).map((c) => [c.principal, c.tenant, c.calls])).toEqual([['alice', undefined, 2], ['dave', undefined, 1], ['alice', 'globex', 1], ['bob', undefined, 1]]);
    // A later sweep finds nothing left to answer, and the chain still verifies with the new link.
    await recorder().sweep();
    expect((await repo.query({ type: 'ToolVersionDeprecationCallers', limit: 10 })).entries).toHaveLength(1);
    expect(await repo.verify()).toMatchObject({ ok: true });
  });
});
