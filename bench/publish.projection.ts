/**
 * What discovery spends applying publishes to tools that already hold many versions, without HTTP,
 * the registry or a bus: `node -r @swc-node/register bench/publish.projection.ts [--versions 50,200,400]`.
 * 16 tools, each grown to N versions first; then batches of two publishes per tool are applied as the
 * projector applies them (one transaction, BatchProjection, flush) and each touched entry is
 * published as the catalog topic's records and applied by an edge's replica (CatalogReplica). Prints CPU ms per publish
 * of this process and of PostgreSQL. Runs unchanged on older code, for old-vs-new runs back to back.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { EventEnvelope } from '@estate/events';
import { inTransaction, openDatabase, startEmbeddedPostgres, type Logger, type OutgoingMessage } from '@estate/platform';
import pino from 'pino';
import { bankSpecs } from '../examples/bank/bank.specs';
import { BatchProjection } from '../apps/discovery/src/batch.projection';
import { applyEnvelope } from '../apps/discovery/src/catalog.apply';
import { publishCatalogEntries, type ChangedVersions } from '../apps/discovery/src/catalog.publisher';
import { CatalogRepository } from '../apps/discovery/src/store/catalog.repository';
import { DISCOVERY_ENTITIES, DISCOVERY_MIGRATIONS } from '../apps/discovery/src/store/migrations';
import { CatalogReplica } from '../apps/mcp-edge/src/catalog/catalog.replica';
import { option, runBench } from './support/bench.cli';
import { postmasterPid, startCpuSpan } from './support/cpu.meter';

const TOOLS = 16;
const PER_TOOL_PER_BATCH = 2;
const MEASURED_BATCHES = 60;
const [base] = bankSpecs('bench');

/** The versions cache when this checkout has one (older code reads every entry whole instead). */
function versionsCache(): unknown {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { ToolVersionsCache } = require('../apps/discovery/src/tool-versions.cache') as { ToolVersionsCache: new () => unknown };
    return new ToolVersionsCache();
  } catch {
    return undefined;
  }
}

function published(tool: number, n: number): EventEnvelope {
  const spec = { ...base, name: `bench.t${tool}`, version: `1.${n}.0`, description: `A tool published again and again; revision ${n}.` };
  return {
    id: `t${tool}-${n}`, type: 'ToolVersionPublished', version: 1, stream: `tool:bench.t${tool}`, position: n,
    occurredAt: '2026-01-01T00:00:00.000Z', actor: 'bench', correlationId: 'bench', data: { spec, bump: 'minor', changes: [] },
  };
}

type Batch = (from: number, count: number) => Promise<void>;

function batchApplier(repo: CatalogRepository, logger: Logger, cache: unknown): Batch {
  // The edge's side of the catalog topic: every record published is applied by an edge's replica.
  const replica = new CatalogReplica(logger, 0);
  let offset = 0;
  const edge = {
    publish: async (topic: string, messages: OutgoingMessage[]) => {
      await replica.receiveBatch(messages.map((m) => ({ topic, partition: 0, offset: String(offset++), key: m.key ?? null, value: m.value, headers: {} })));
    },
  };
  return async (from, count) => {
    const target = await inTransaction(repo.db, async (runner) => {
      const batch = new (BatchProjection as unknown as new (...args: unknown[]) => BatchProjection)(repo, runner, cache);
      const events: EventEnvelope[] = [];
      for (let n = from; n < from + count; n += 1) for (let tool = 0; tool < TOOLS; tool += 1) events.push(published(tool, n));
      // As the projector does, where the code has it: what the batch names is read up front.
      await (batch as unknown as { prefetch?: (raws: unknown[]) => Promise<void> }).prefetch?.(events);
      for (const event of events) await applyEnvelope(batch, event);
      await batch.flush();
      return batch;
    });
    (target as unknown as { remember?: () => void }).remember?.();
    const names = Array.from({ length: TOOLS }, (_, tool) => `bench.t${tool}`);
    // Only the changed versions and the heads, where the code sends them so.
    const changed = (target as unknown as { changedVersions?: () => ChangedVersions }).changedVersions?.();
    await publishCatalogEntries(edge, 'catalog', target.written(names) ?? [], 1e9, logger, undefined, changed);
  };
}

async function measure(url: string, postmaster: number, versions: number, logger: Logger): Promise<{ node: number; postgres: number }> {
  const db = await openDatabase({ url, schema: 'discovery', migrations: DISCOVERY_MIGRATIONS, entities: DISCOVERY_ENTITIES, poolSize: 2 });
  try {
    await db.query(`DELETE FROM discovery.tools; DELETE FROM discovery.streams`);
    const apply = batchApplier(new CatalogRepository(db), logger, versionsCache());
    for (let n = 0; n < versions; n += 20) await apply(n, Math.min(20, versions - n));
    const span = startCpuSpan({ node: 'self', postgres: [postmaster] });
    for (let b = 0; b < MEASURED_BATCHES; b += 1) await apply(versions + b * PER_TOOL_PER_BATCH, PER_TOOL_PER_BATCH);
    const spent = span.stop();
    const publishes = MEASURED_BATCHES * PER_TOOL_PER_BATCH * TOOLS;
    return { node: (spent.node * 1000) / publishes, postgres: (spent.postgres * 1000) / publishes };
  } finally {
    await db.destroy();
  }
}

async function main(): Promise<void> {
  const logger = pino({ level: 'silent' });
  const dir = mkdtempSync(path.join(os.tmpdir(), 'estate-bench-pg-'));
  const pg = await startEmbeddedPostgres(path.join(dir, 'data'), logger);
  try {
    const postmaster = postmasterPid(path.join(dir, 'data'));
    process.stdout.write(`| versions per tool | CPU ms/publish: node | postgres | total | load (1 min) |\n| --- | --- | --- | --- | --- |\n`);
    for (const versions of (option('--versions') ?? '50,200,400').split(',').map(Number)) {
      const cpu = await measure(pg.url, postmaster, versions, logger);
      process.stdout.write(`| ${versions} | ${cpu.node.toFixed(3)} | ${cpu.postgres.toFixed(3)} | ${(cpu.node + cpu.postgres).toFixed(3)} | ${os.loadavg()[0].toFixed(1)} |\n`);
    }
  } finally {
    await pg.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

runBench(main);
