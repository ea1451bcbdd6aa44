/**
 * Discovery's rebuild over long registry logs: `npm run bench:rebuild` (or with cases such as
 * `postgres-log:100000 kafka-log:100000 event-store:100000`). Each size runs in a child process of its own, so one
 * size's heap cannot flatter or burden the next one's memory figure. Prints a table.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import os from 'node:os';
import path from 'node:path';
import { Kafka } from 'kafkajs';
import { DeadLetterOffice, estateTopics, KafkaEventBus, openDatabase, PostgresEventBus, startEmbeddedPostgres, createLogger, type EventBus } from '@estate/platform';
import { CatalogProjector } from '../apps/discovery/src/catalog.projector';
import { CatalogRebuilder } from '../apps/discovery/src/catalog.rebuilder';
import { CatalogRepository } from '../apps/discovery/src/store/catalog.repository';
import { DISCOVERY_ENTITIES, DISCOVERY_MIGRATIONS } from '../apps/discovery/src/store/migrations';
import { EventLogReader } from '../apps/registry/src/store/event-log.reader';
import { REGISTRY_ENTITIES, REGISTRY_MIGRATIONS } from '../apps/registry/src/store/migrations';
import { writeBenchSection, sectionHeader } from './support/benchmarks.section';
import { pidsMatching, postmasterPid, startCpuSpan } from './support/cpu.meter';
import { batches, LOG_TOOLS, registryLog } from './support/registry-log.fixture';

type Source = 'postgres-log' | 'kafka-log' | 'event-store';
interface Figures {
  source: Source; events: number; seconds: number; perSecond: number; baselineMb: number; peakMb: number; peakHeapMb: number; tools: number;
  /** CPU µs per event during the rebuild: discovery (this process), PostgreSQL (all backends), the broker (shared with other clients). */
  cpuUs: { discovery: number; postgres: number; kafka: number };
}

const logger = createLogger('rebuild-bench', 'warn');
const mb = (bytes: number) => Math.round(bytes / 1048576);

/**
 * Samples RSS and the V8 heap in use while `work` runs: the peaks are what a rebuild of this log
 * needs on top of the process (the log was filled by another process, so none of it is resident here).
 */
async function peakMemory<T>(work: () => Promise<T>): Promise<{ result: T; peak: number; peakHeap: number }> {
  let peak = process.memoryUsage.rss();
  let peakHeap = process.memoryUsage().heapUsed;
  const sample = () => {
    const { rss, heapUsed } = process.memoryUsage();
    peak = Math.max(peak, rss);
    peakHeap = Math.max(peakHeap, heapUsed);
  };
  const timer = setInterval(sample, 25);
  try {
    const result = await work();
    sample();
    return { result, peak, peakHeap };
  } finally {
    clearInterval(timer);
  }
}

/**
 * Fills the log or the event store from a child process: a million events published from this one
 * would leave its heap and RSS grown before the rebuild starts, hiding what the rebuild itself needs.
 */
function fillInChild(source: Source, events: number, pgUrl: string, topic: string): void {
  execFileSync(process.execPath, ['-r', '@swc-node/register', __filename, '--fill', source, String(events), pgUrl, topic], { stdio: ['ignore', 'inherit', 'inherit'] });
}

async function fill(source: Source, events: number, pgUrl: string, topic: string): Promise<void> {
  if (source === 'event-store') return fillStore(pgUrl, events);
  const bus = busOf(source, pgUrl);
  try {
    await fillLog(bus, topic, events);
  } finally {
    await bus.close();
  }
}

function busOf(source: Source, pgUrl: string): EventBus {
  const brokers = process.env.KAFKA_BROKERS?.split(',').filter(Boolean) ?? [];
  return source === 'kafka-log' ? new KafkaEventBus({ brokers, clientId: 'rebuild-bench', logger }) : new PostgresEventBus({ url: pgUrl, logger });
}

async function fillLog(bus: EventBus, topic: string, events: number): Promise<void> {
  for (const batch of batches(registryLog(events), 1000)) {
    await bus.publish(topic, batch.map((e) => ({ key: e.stream, value: JSON.stringify(e), headers: { 'estate-id': e.id } })));
  }
}

async function fillStore(url: string, events: number): Promise<void> {
  const db = await openDatabase({ url, schema: 'registry', migrations: REGISTRY_MIGRATIONS, entities: REGISTRY_ENTITIES });
  for (const batch of batches(registryLog(events), 2000)) {
    await db.query(
      `INSERT INTO registry.events (id, stream_id, stream_version, type, version, data, actor, correlation_id, occurred_at)
       SELECT * FROM unnest($1::uuid[], $2::text[], $3::int[], $4::text[], $5::int[], $6::text[]::json[], $7::text[], $8::text[], $9::timestamptz[])`,
      [batch.map((e) => e.id), batch.map((e) => e.stream), batch.map((e) => e.position), batch.map((e) => e.type), batch.map((e) => e.version),
        batch.map((e) => JSON.stringify(e.data)), batch.map((e) => e.actor), batch.map((e) => e.correlationId), batch.map((e) => e.occurredAt)],
    );
  }
  await db.destroy();
}

/** With a file named, the rebuild alone (not the filling of the log) is CPU-profiled into it: `--one kafka-log 100000 rebuild.cpuprofile`. */
async function profiled<T>(file: string | undefined, work: () => Promise<T>): Promise<T> {
  if (!file) return work();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  try {
    return await work();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
  }
}

async function measure(source: Source, events: number, profileFile?: string): Promise<Figures> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'estate-rebuild-bench-'));
  const pg = await startEmbeddedPostgres(path.join(dir, 'pg'), logger);
  const prefix = `bench${Date.now().toString(36)}`;
  const topics = estateTopics(prefix, 60_000);
  const brokers = process.env.KAFKA_BROKERS?.split(',').filter(Boolean) ?? [];
  const bus = busOf(source, pg.url);
  const db = await openDatabase({ url: pg.url, schema: 'discovery', migrations: DISCOVERY_MIGRATIONS, entities: DISCOVERY_ENTITIES });
  try {
    await bus.ensureTopics([topics.registryEvents, topics.catalog, topics.deadLetter]);
    fillInChild(source, events, pg.url, topics.registryEvents.name);
    // The event store is the registry's table: read it through a data source that knows its entity.
    const registryDb = source === 'event-store' ? await openDatabase({ url: pg.url, schema: 'registry', migrations: REGISTRY_MIGRATIONS, entities: REGISTRY_ENTITIES }) : undefined;
    const reader = new EventLogReader(registryDb ?? db);
    const store = { count: async () => (await reader.page('0', 1)).total ?? 0, read: (after: string, limit: number) => reader.page(after, limit) };
    const deadLetters = new DeadLetterOffice(bus, topics.deadLetter.name, 'discovery', logger);
    const projector = new CatalogProjector(new CatalogRepository(db), bus, { events: topics.registryEvents.name, catalog: topics.catalog.name }, 'bench', logger, deadLetters, { timeoutMs: 3_600_000 });
    global.gc?.();
    const baseline = process.memoryUsage.rss();
    const cpu = startCpuSpan({ discovery: 'self', postgres: [postmasterPid(path.join(dir, 'pg'))], kafka: source === 'kafka-log' ? pidsMatching('kafka.Kafka') : [] });
    const started = performance.now();
    // The event store is read the way `estate verify` and a rebuild over an incomplete log read it (no relay grace wait).
    const { result: tools, peak, peakHeap } = await peakMemory(() => profiled(profileFile, async () => (source === 'event-store'
      ? (await new CatalogRebuilder(bus, topics.registryEvents.name, 'bench', logger, { source: store, timeoutMs: 3_600_000 }).foldFromStore()).projection.tools.size
      : (await projector.rebuild()).tools)));
    const seconds = (performance.now() - started) / 1000;
    const used = cpu.stop();
    const perEvent = (s: number) => Math.round((s * 1e7) / events) / 10;
    const cpuUs = { discovery: perEvent(used.discovery), postgres: perEvent(used.postgres), kafka: perEvent(used.kafka) };
    await registryDb?.destroy();
    if (tools !== LOG_TOOLS) throw new Error(`the rebuild ended with ${tools} tools, not ${LOG_TOOLS}`);
    return { source, events, seconds: Math.round(seconds * 100) / 100, perSecond: Math.round(events / seconds), baselineMb: mb(baseline), peakMb: mb(peak), peakHeapMb: mb(peakHeap), tools, cpuUs };
  } finally {
    await bus.close();
    await db.destroy();
    if (source === 'kafka-log') await deleteTopics(brokers, Object.values(topics).map((t) => t.name));
    await pg.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The shared broker keeps nothing of the bench's topics. */
async function deleteTopics(brokers: string[], names: string[]): Promise<void> {
  const admin = new Kafka({ brokers, clientId: 'rebuild-bench-cleanup', logCreator: () => () => undefined }).admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    await admin.deleteTopics({ topics: names.filter((n) => existing.has(n)) });
  } finally {
    await admin.disconnect();
  }
}

/** With `--one <source> <events>` measures once and prints JSON; otherwise runs every case in its own child. */
async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args[0] === '--fill') {
    await fill(args[1] as Source, Number(args[2]), args[3], args[4]);
    return;
  }
  if (args[0] === '--one') {
    process.stdout.write(`${JSON.stringify(await measure(args[1] as Source, Number(args[2]), args[3]))}\n`);
    return;
  }
  // Both logs at 100k and 1M events (the 1M Kafka log is about 400 MB on the broker; its topics are deleted after).
  const kafka = process.env.KAFKA_BROKERS ? 'kafka-log' : undefined;
  const cases: Array<[Source, number]> = args.length > 0
    ? args.map((a) => a.split(':') as [Source, string]).map(([source, events]) => [source, Number(events)])
    : [['postgres-log', 100_000], ['postgres-log', 1_000_000], ...(kafka ? [[kafka, 100_000], [kafka, 1_000_000]] as Array<[Source, number]> : []), ['event-store', 100_000]];
  const rows: Figures[] = [];
  const load = os.loadavg();
  for (const [source, events] of cases) {
    process.stderr.write(`[rebuild bench] ${source}, ${events} events, load average ${os.loadavg()[0].toFixed(1)}\n`);
    const out = execFileSync(process.execPath, ['--expose-gc', '-r', '@swc-node/register', __filename, '--one', source, String(events)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    rows.push(JSON.parse(out.trim().split('\n').pop() ?? '{}') as Figures);
  }
  const table = [
    '| source | events | seconds | events/s | CPU µs/event: discovery | PostgreSQL | broker (shared) | RSS before (MB) | peak RSS during (MB) | peak heap used (MB) | tools |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map((r) => `| ${r.source} | ${r.events} | ${r.seconds} | ${r.perSecond} | ${r.cpuUs.discovery} | ${r.cpuUs.postgres} | ${r.cpuUs.kafka} | ${r.baselineMb} | ${r.peakMb} | ${r.peakHeapMb} | ${r.tools} |`),
  ];
  process.stdout.write(`${table.join('\n')}\n`);
  const command = `npm run bench:rebuild -- ${args.join(' ')}`.trim();
  writeBenchSection('Discovery rebuild (bench/rebuild.bench.ts)', [
    ...sectionHeader(command, load),
    '- Each case in a fresh child process; the rebuild streams the log (or the event store) through the fold. Issue 15 target: ≥ 50,000 events/s, memory flat in the log\'s length.',
    '- The log is filled by another child first, so the RSS and heap figures are the rebuild\'s own; heap is sampled every 25 ms (garbage not yet collected counts).',
    '- CPU per event: user + system of each process on the path over the rebuild, from /proc/<pid>/stat; the broker is shared with other clients, so its share is an upper bound.',
    '',
    ...table,
  ]);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
}
