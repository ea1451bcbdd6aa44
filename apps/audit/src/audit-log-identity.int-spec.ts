import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import pino from 'pino';
import type { EventEnvelope } from '@estate/events';
import { estateTopics, issueDevToken, KafkaEventBus } from '@estate/platform';
import { waitFor } from '../../../test/support/estate.harness';
import { createTestDatabase, kafkaBrokers, randomTopicPrefix } from '../../../test/support/infra';
import { startAudit } from './audit.app';
import { loadAuditConfig } from './config';

const SECRET = 'audit-identity-secret-0123456789';

const call = (principal: string): EventEnvelope => ({
  id: randomUUID(), type: 'ToolCallCompleted', version: 1, stream: principal, position: 0, occurredAt: '2026-01-01T00:00:00Z',
  actor: 'mcp-edge', correlationId: 'c', data: { principal, tool: 'pay.lookup', version: '1.0.0', outcome: 'ok', durationMs: 1, attempts: 1, repaired: 0 },
});

describe('audit checks that a log still holds what it recorded (real Kafka and PostgreSQL)', () => {
  const lines: Array<{ msg: string }> = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(JSON.parse(line) as { msg: string }) });
  const admin = new Kafka({ clientId: 'audit-identity', brokers: kafkaBrokers(), logLevel: logLevel.NOTHING }).admin();
  const cleanups: Array<() => Promise<void>> = [];

  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    await admin.disconnect();
  });

  it('re-reads a recreated call log from its start and records each event exactly once', async () => {
    await admin.connect();
    const db = await createTestDatabase();
    cleanups.push(db.drop);
    const prefix = randomTopicPrefix();
    const specs = estateTopics(prefix, 3_600_000);
    const bus = new KafkaEventBus({ brokers: kafkaBrokers(), clientId: 'audit-identity', logger });
    cleanups.push(() => bus.close());
    const config = { ...loadAuditConfig({ ESTATE_AUDIT_PORT: '0', ESTATE_JWT_SECRET: SECRET, ESTATE_TOPIC_PREFIX: prefix, ESTATE_AUDIT_GROUP: `audit-${randomUUID()}` }), databaseUrl: db.url };
    const auditor = await issueDevToken(SECRET, { sub: 'auditor', scope: 'estate:audit' });
    const send = (...envelopes: EventEnvelope[]) => bus.publish(specs.calls.name, envelopes.map((e) => ({ key: e.stream, value: JSON.stringify(e) })));
    const recorded = async (url: string): Promise<string[]> => {
      const body = (await (await fetch(`${url}/v1/audit?type=ToolCallCompleted&limit=500`, { headers: { authorization: `Bearer ${auditor}` } })).json()) as { entries: Array<{ eventId: string }> };
      return body.entries.map((e) => e.eventId).sort();
    };

    let audit = await startAudit(config, bus, logger);
    const first = [call('a'), call('b'), call('c')];
    await send(...first);
    await waitFor(async () => ((await recorded(audit.url)).length === 3 ? true : undefined), 'three calls recorded', 30000);
    await audit.stop();

    // The new log is longer than the old one and starts with one event recorded already.
    await admin.deleteTopics({ topics: [specs.calls.name] });
    await waitFor(async () => (!(await admin.listTopics()).includes(specs.calls.name) ? true : undefined), 'the topic deleted');
    await bus.ensureTopics([specs.calls]);
    const fresh = [call('d'), call('e'), call('f'), call('g')];
    await send(first[0], ...fresh);
    audit = await startAudit(config, bus, logger);
    cleanups.push(audit.stop);
    const all = [...first, ...fresh].map((e) => e.id).sort();
    await waitFor(async () => ((await recorded(audit.url)).length === all.length ? true : undefined), 'every call recorded', 30000);
    expect(await recorded(audit.url)).toEqual(all);
    const verify = (await (await fetch(`${audit.url}/v1/audit/verify`, { headers: { authorization: `Bearer ${auditor}` } })).json()) as { ok: boolean };
    expect(verify.ok).toBe(true);
    expect(lines.filter((l) => /the log .*calls was reset, truncated or recreated .*the log was recreated/.test(l.msg))).toHaveLength(1);
  }, 90_000);
});
