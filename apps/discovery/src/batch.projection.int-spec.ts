import type { DataSource } from 'typeorm';
import type { EventEnvelope } from '@estate/events';
import { inTransaction, openDatabase } from '@estate/platform';
import { bankSpecs } from '../../../examples/bank/bank.specs';
import { createTestDatabase } from '../../../test/support/infra';
import { BatchProjection } from './batch.projection';
import { applyEnvelope, MemoryProjection } from './catalog.apply';
import { CatalogRepository } from './store/catalog.repository';
import { DISCOVERY_ENTITIES, DISCOVERY_MIGRATIONS } from './store/migrations';
import { ToolVersionsCache } from './tool-versions.cache';

const [lookup, refund] = bankSpecs('pay');
let next = 0;
const envelope = (stream: string, position: number, type: string, data: unknown, version = 1): EventEnvelope => ({
  id: `e${(next += 1)}`, type, version, stream, position, occurredAt: `2026-01-01T00:00:${String(next % 60).padStart(2, '0')}.000Z`, actor: 'test', correlationId: 'c', data,
});
const server = (position: number, url: string) => envelope('server:pay', position, 'ServerRegistered', { name: 'pay', url, owner: 'ops' });
const published = (spec: typeof lookup, position: number, version: string) =>
  envelope(`tool:${spec.name}`, position, 'ToolVersionPublished', { spec: { ...spec, version }, bump: 'minor', changes: [] });
const deprecated = (spec: typeof lookup, position: number, version: string) =>
  envelope(`tool:${spec.name}`, position, 'ToolVersionDeprecated', { name: spec.name, version, reason: 'old' });

/** A registry log where one batch holds many events of one tool, a server moves under its tools, and a poison event sits in between. */
const log: unknown[] = [
  server(0, 'http://127.0.0.1:9/mcp'),
  ...Array.from({ length: 12 }, (_, i) => published(lookup, i, `1.${i}.0`)),
  published(refund, 0, '1.0.0'),
  server(1, 'http://127.0.0.1:10/mcp'),
  deprecated(lookup, 12, '1.0.0'),
  deprecated(refund, 1, '9.9.9'),
  published(refund, 1, '1.1.0'),
  published(lookup, 3, '1.3.0'),
  server(2, 'http://127.0.0.1:11/mcp'),
  deprecated(refund, 1, '1.0.0'),
];

describe('batched projection apply', () => {
  let test: { url: string; drop(): Promise<void> };
  const sources: DataSource[] = [];

  beforeAll(async () => {
    test = await createTestDatabase();
  });

  afterAll(async () => {
    for (const db of sources) await db.destroy();
    await test.drop();
  });

  /** Applies the log in batches; with a cache kept across batches as the projector keeps it, a batch in `failing` rolls back once first. */
  async function project(size: number, cache?: ToolVersionsCache, failing = new Set<number>()): Promise<CatalogRepository> {
    const db = await openDatabase({ url: test.url, schema: 'discovery', migrations: DISCOVERY_MIGRATIONS, entities: DISCOVERY_ENTITIES, poolSize: 2 });
    sources.push(db);
    await db.query(`DELETE FROM discovery.tools; DELETE FROM discovery.servers; DELETE FROM discovery.streams`);
    const repo = new CatalogRepository(db);
    for (let at = 0; at < log.length; at += size) {
      if (failing.has(at)) {
        const attempt = inTransaction(db, async (runner) => {
          const target = new BatchProjection(repo, runner, cache);
          for (const raw of log.slice(at, at + size)) await applyEnvelope(target, raw);
          await target.flush();
          throw new Error('the batch fails after its writes');
        });
        await expect(attempt).rejects.toThrow('the batch fails after its writes');
      }
      const target = await inTransaction(db, async (runner) => {
        const batch = new BatchProjection(repo, runner, cache);
        // As the projector does with a cache: what the batch names is read up front.
        if (cache) await batch.prefetch(log.slice(at, at + size));
        for (const raw of log.slice(at, at + size)) await applyEnvelope(batch, raw);
        await batch.flush();
        return batch;
      });
      target.remember();
    }
    return repo;
  }

  async function expectAsReference(repo: CatalogRepository): Promise<void> {
    const reference = new MemoryProjection();
    const outcomes: unknown[] = [];
    for (const raw of log) outcomes.push(await applyEnvelope(reference, raw));
    expect(outcomes.filter((o) => (o as { skipped?: string }).skipped !== undefined)).toHaveLength(1);
    expect(await repo.allServers()).toEqual([...reference.servers.values()]);
    expect(await repo.allTools()).toEqual([...reference.tools.values()].sort((a, b) => a.name.localeCompare(b.name)));
    expect(await repo.appliedEvents()).toBe([...reference.streams.values()].reduce((sum, p) => sum + p + 1, 0));
  }

  it.each([[1], [4], [7], [log.length]])('applies the log in batches of %i with the result of applying it one event at a time', async (size) => {
    await expectAsReference(await project(size));
  });

  it.each([[1], [4], [7]])('gives the same result with the versions of each tool kept across batches of %i, a batch rolled back and applied again included', async (size) => {
    await expectAsReference(await project(size, new ToolVersionsCache(), new Set([0, size * 2])));
  });

  it('stores each version of a tool as a row of its own, its text as published', async () => {
    const repo = await project(4, new ToolVersionsCache());
    const [entry] = await repo.toolsNamed([lookup.name]);
    const rows = (await repo.db.query(`SELECT version, body::text AS body FROM discovery.tool_versions WHERE tool = $1`, [lookup.name])) as Array<{ version: string; body: string }>;
    expect(rows).toHaveLength(entry.versions.length);
    expect(new Map(rows.map((r) => [r.version, r.body]))).toEqual(new Map(entry.versions.map((v) => [v.version, JSON.stringify(v)])));
  });
});
