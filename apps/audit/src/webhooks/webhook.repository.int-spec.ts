import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { openDatabase } from '@estate/platform';
import { createTestDatabase } from '../../../../test/support/infra';
import { AUDIT_ENTITIES, AUDIT_MIGRATIONS } from '../store/migrations';
import { WebhookRepository } from './webhook.repository';
import { WebhookSecretBox } from './webhook-secret.box';

describe('webhook repository: pruning delivered rows, secrets at rest', () => {
  let drop: () => Promise<void>;
  let db: DataSource;
  let repo: WebhookRepository;

  beforeAll(async () => {
    const created = await createTestDatabase();
    drop = created.drop;
    db = await openDatabase({ url: created.url, schema: 'audit', migrations: AUDIT_MIGRATIONS, entities: AUDIT_ENTITIES });
    repo = new WebhookRepository(db);
  });

  afterAll(async () => {
    await db?.destroy();
    await drop?.();
  });

  async function subscriptionWith(events: number, at: Date): Promise<string> {
    const id = randomUUID();
    await repo.create({ id, url: 'http://127.0.0.1:1/hook', filter: { tools: [], types: [] }, secret: 's'.repeat(32), createdBy: 'ops', createdAt: at.toISOString(), cursorSeq: 0 });
    await repo.queue(id, Array.from({ length: events }, (_, i) => ({ seq: i + 1, eventId: `e${i + 1}`, tool: `t${i % 2}` })), events, at);
    return id;
  }

  it('deletes only delivered rows older than the cut, of that subscription, at most the limit at a time', async () => {
    const old = new Date('2026-01-01T00:00:00Z');
    const recent = new Date('2026-06-01T00:00:00Z');
    const id = await subscriptionWith(6, old);
    const other = await subscriptionWith(2, old);
    const rows = await repo.heads(id, 10);
    // seq 1 and 2 are the heads (one per tool): deliver both long ago; seq 3 dead long ago; seq 4 delivered recently.
    await repo.delivered(rows[0].id, 1, old);
    await repo.delivered(rows[1].id, 1, old);
    const next = await repo.heads(id, 10);
    await repo.dead(next[0].id, 8, 'refused', old);
    await repo.delivered(next[1].id, 1, recent);
    for (const head of await repo.heads(other, 10)) await repo.delivered(head.id, 1, old);

    const cut = new Date('2026-03-01T00:00:00Z');
    expect(await repo.pruneDelivered(id, cut, 1)).toBe(1);
    expect(await repo.pruneDelivered(id, cut, 100)).toBe(1);
    expect(await repo.pruneDelivered(id, cut, 100)).toBe(0);
    expect(await repo.counts(id)).toEqual({ pending: 2, delivered: 1, dead: 1 });
    expect(await repo.counts(other)).toEqual({ pending: 0, delivered: 2, dead: 0 });
    expect((await repo.deadLetters(id, 10)).map((d) => d.state)).toEqual(['dead']);
  });

  it('with a key, stores no usable secret, opens it again, seals rows written before the key, and names a row another key cannot open', async () => {
    const secret = `whsec-${randomUUID()}`;
    const stored = async (id: string): Promise<string> => ((await db.query('SELECT secret FROM audit.webhook_subscriptions WHERE id = $1', [id])) as { secret: string }[])[0].secret;
    const keyed = new WebhookRepository(db, new WebhookSecretBox('k'.repeat(40)));
    const sealedId = randomUUID();
    await keyed.create({ id: sealedId, url: 'http://127.0.0.1:1/hook', filter: { tools: [], types: [] }, secret, createdBy: 'ops', createdAt: new Date().toISOString(), cursorSeq: 0 });
    expect(await stored(sealedId)).not.toContain(secret);
    expect((await keyed.get(sealedId))?.secret).toBe(secret);

    // Written by an audit without the key, then sealed when a keyed audit starts; the secret it signs with is unchanged.
    const plainId = randomUUID();
    await repo.create({ id: plainId, url: 'http://127.0.0.1:1/hook', filter: { tools: [], types: [] }, secret, createdBy: 'ops', createdAt: new Date().toISOString(), cursorSeq: 0 });
    expect(await stored(plainId)).toBe(secret);
    expect(await keyed.sealStoredSecrets()).toBeGreaterThanOrEqual(1);
    expect(await stored(plainId)).toMatch(/^sealed:v1:/);
    expect((await keyed.get(plainId))?.secret).toBe(secret);
    expect(await keyed.sealStoredSecrets()).toBe(0);

    const wrongKey = new WebhookRepository(db, new WebhookSecretBox('w'.repeat(40)));
    const seen = await wrongKey.get(sealedId);
    expect(seen?.secret).toBe('');
    expect(seen?.secretProblem).toMatch(/another ESTATE_WEBHOOK_SECRET_KEY/);
    expect((await repo.get(sealedId))?.secretProblem).toMatch(/ESTATE_WEBHOOK_SECRET_KEY is not set/);
  });
});
