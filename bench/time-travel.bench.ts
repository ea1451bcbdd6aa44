/**
 * `at=` discovery over a long registry log: `npm run bench:time-travel` (or with an event count).
 * Fills a fresh embedded PostgreSQL's event store with a generated log whose events are one second
 * apart, then asks AsOfDiscovery (what GET /v1/discover?at= calls) at random instants. Discovery
 * reads the store with its own RegistryEventsClient over real HTTP, from a bare server around the
 * registry's EventLogReader (the registry's Nest layer and discovery's own are not in the figure).
 * Prints one JSON line.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createLogger, openDatabase, startEmbeddedPostgres } from '@estate/platform';
import type { EventEnvelope } from '@estate/events';
import { RegistryEventsClient } from '../apps/discovery/src/registry-events.client';
import { AsOfDiscovery } from '../apps/discovery/src/time-travel/as-of.discovery';
import { EventLogReader } from '../apps/registry/src/store/event-log.reader';
import { REGISTRY_ENTITIES, REGISTRY_MIGRATIONS } from '../apps/registry/src/store/migrations';
import { batches, registryLog } from './support/registry-log.fixture';

const QUERIES = 200;
const logger = createLogger('time-travel-bench', 'warn');
const principal = { id: 'bench-agent', scopes: ['bank:read'], clearance: 'internal' as const };

/** The fixture's log with one second between events, ending an hour ago. */
function* spacedLog(events: number, start: number): Generator<EventEnvelope> {
  let n = 0;
  for (const event of registryLog(events)) yield { ...event, occurredAt: new Date(start + 1000 * n++).toISOString() };
}

async function fill(url: string, events: number, start: number): Promise<void> {
  const db = await openDatabase({ url, schema: 'registry', migrations: REGISTRY_MIGRATIONS, entities: REGISTRY_ENTITIES });
  for (const batch of batches(spacedLog(events, start), 2000)) {
    await db.query(
      `INSERT INTO registry.events (id, stream_id, stream_version, type, version, data, actor, correlation_id, occurred_at)
       SELECT * FROM unnest($1::uuid[], $2::text[], $3::int[], $4::text[], $5::int[], $6::text[]::json[], $7::text[], $8::text[], $9::timestamptz[])`,
      [batch.map((e) => e.id), batch.map((e) => e.stream), batch.map((e) => e.position), batch.map((e) => e.type), batch.map((e) => e.version),
        batch.map((e) => JSON.stringify(e.data)), batch.map((e) => e.actor), batch.map((e) => e.correlationId), batch.map((e) => e.occurredAt)],
    );
  }
  await db.destroy();
}

/** GET /v1/events?after=&limit= as the registry answers it, without its Nest layer. */
async function serveEvents(reader: EventLogReader): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => {
    const query = new URL(request.url ?? '/', 'http://x').searchParams;
    reader.page(query.get('after') ?? '0', Number(query.get('limit') ?? 500)).then(
      (page) => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(page)),
      (error: unknown) => response.writeHead(500).end(String(error)),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
const round = (ms: number) => Math.round(ms * 10) / 10;

async function main(): Promise<void> {
  const events = Number(process.argv[2] ?? 100_000);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'estate-time-travel-bench-'));
  const pg = await startEmbeddedPostgres(path.join(dir, 'pg'), logger);
  try {
    const start = Date.now() - 3_600_000 - events * 1000;
    await fill(pg.url, events, start);
    const db = await openDatabase({ url: pg.url, schema: 'registry', migrations: REGISTRY_MIGRATIONS, entities: REGISTRY_ENTITIES });
    const { server, url } = await serveEvents(new EventLogReader(db));
    const asOf = new AsOfDiscovery(new RegistryEventsClient({ registryUrl: url, serviceToken: 'bench' }), logger);
    const at = () => start + Math.floor(Math.random() * events * 1000);
    let began = performance.now();
    // The first query indexes the whole log; later ones fold from the nearest checkpoint.
    await asOf.discover(principal, { at: Date.now() });
    const indexMs = performance.now() - began;
    const times: number[] = [];
    let tools = 0;
    for (let i = 0; i < QUERIES; i += 1) {
      began = performance.now();
      const answer = await asOf.discover(principal, { at: at() });
      times.push(performance.now() - began);
      if (answer.ok) tools += answer.value.tools.length;
    }
    times.sort((a, b) => a - b);
    const figures = {
      events, queries: QUERIES, firstQueryIndexingMs: Math.round(indexMs), p50Ms: round(percentile(times, 50)), p99Ms: round(percentile(times, 99)),
      maxMs: round(times[times.length - 1]), meanToolsPerAnswer: Math.round(tools / QUERIES), rssMb: Math.round(process.memoryUsage.rss() / 1048576),
    };
    process.stdout.write(`${JSON.stringify(figures)}\n`);
    server.close();
    await db.destroy();
  } finally {
    await pg.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
}
