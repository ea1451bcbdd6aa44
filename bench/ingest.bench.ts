import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { callEnvelopeText, topicName, type CallEvent } from '@estate/events';
import {
  batchBySize, estateTopics, issueDevToken, KafkaEventBus, messageBytes, PostgresEventBus, startEmbeddedPostgres, timeOrderedEventId, type EventBus, type Logger, type OutgoingMessage,
} from '@estate/platform';
import { startAudit } from '../apps/audit/src/audit.app';
import { loadAuditConfig } from '../apps/audit/src/config';
import type { BenchTable } from './contracts.bench';
import { BENCH_SECRET, benchTopicPrefix } from './support/edge.launcher';
import { postmasterPid, pidsMatching, startCpuSpan } from './support/cpu.meter';
import { round } from './support/load.runner';

export type BusKind = 'kafka' | 'postgres';

export interface IngestFigures {
  bus: BusKind;
  records: number;
  /** From the consumer's start (group join included) to the last record's position committed. */
  seconds: number;
  perSecond: number;
  /** Between the first and the last batch's commit: the rate once the consumer runs. */
  steadyPerSecond: number;
  verifySeconds: number;
  chainOk: boolean;
  /** CPU seconds per record from audit's start to the last position: audit (this process), PostgreSQL (all backends), the broker (shared: includes other clients). */
  cpuMsPerRecord: { audit: number; postgres: number; kafka: number };
}

/** The embedded PostgreSQL the ingest and catch-up figures run on; a fresh database per measurement. */
export interface BenchDatabase {
  /** The postmaster's pid: its backends are the PostgreSQL side of the CPU figure. */
  postmaster: number;
  create(): Promise<string>;
  stop(): Promise<void>;
}

export async function startBenchDatabase(logger: Logger): Promise<BenchDatabase> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'estate-bench-pg-'));
  const pg = await startEmbeddedPostgres(path.join(dir, 'data'), logger);
  return {
    postmaster: postmasterPid(path.join(dir, 'data')),
    create: async () => {
      const name = `bench_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
      const client = new Client({ connectionString: pg.url });
      await client.connect();
      await client.query(`CREATE DATABASE ${name}`).finally(() => client.end());
      return pg.url.replace(/\/postgres$/, `/${name}`);
    },
    stop: async () => {
      await pg.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function busFor(kind: BusKind, brokers: string[], databaseUrl: string, logger: Logger): EventBus {
  return kind === 'kafka' ? new KafkaEventBus({ brokers, clientId: 'bench', logger }) : new PostgresEventBus({ url: databaseUrl, logger, poolSize: 4 });
}

/** What the edge sends per call (its own envelope builder): a ToolCallCompleted envelope keyed by principal. */
export function callRecord(i: number): OutgoingMessage {
  const principal = `agent-${i % 64}`;
  const event: CallEvent = {
    type: 'ToolCallCompleted', version: 1,
    data: { attempts: 1, durationMs: i % 90, outcome: i % 20 === 0 ? 'tool_error' : 'ok', principal, repaired: 0, tool: `bench.tool${i % 40}`, version: '1.0.0' },
  };
  return { key: principal, value: callEnvelopeText(event, timeOrderedEventId(Date.UTC(2026, 0, 1) + i), `session-${i % 500}`, new Date(Date.UTC(2026, 0, 1) + i)), headers: { 'estate-type': 'ToolCallCompleted' } };
}

/** Fills the calls topic before audit starts, so the figure is audit's ingest alone, not the producer's pace. */
async function fillCalls(bus: EventBus, topic: string, records: number): Promise<void> {
  const CHUNK = 20_000;
  for (let at = 0; at < records; at += CHUNK) {
    const chunk = Array.from({ length: Math.min(CHUNK, records - at) }, (_, i) => callRecord(at + i));
    for (const batch of batchBySize(chunk, messageBytes, 5000, 900 * 1024)) await bus.publish(topic, batch);
  }
}

async function waitForPosition(databaseUrl: string, topic: string, target: number, timeoutMs: number): Promise<void> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { rows } = await client.query<{ next: string }>(`SELECT next_offset::text AS next FROM audit.positions WHERE topic = $1`, [topic]).catch(() => ({ rows: [] as Array<{ next: string }> }));
      if (Number(rows[0]?.next ?? 0) >= target) return;
      if (Date.now() > deadline) throw new Error(`audit reached offset ${rows[0]?.next ?? 0} of ${target} within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    await client.end();
  }
}

/** Audit's batched, chained ingest of `records` call records already in the log, on one bus. */
export async function measureIngest(kind: BusKind, records: number, brokers: string[], db: BenchDatabase, logger: Logger): Promise<IngestFigures> {
  const databaseUrl = await db.create();
  const bus = busFor(kind, brokers, databaseUrl, logger);
  const prefix = benchTopicPrefix();
  const topics = estateTopics(prefix, 7 * 24 * 3600 * 1000);
  try {
    await bus.ensureTopics([topics.registryEvents, topics.calls]);
    await fillCalls(bus, topics.calls.name, records);
    const config = loadAuditConfig({ ESTATE_AUDIT_PORT: '0', ESTATE_JWT_SECRET: BENCH_SECRET, ESTATE_TOPIC_PREFIX: prefix, ESTATE_AUDIT_GROUP: `bench-audit-${randomUUID()}` });
    const cpu = startCpuSpan({ audit: 'self', postgres: [db.postmaster], kafka: kind === 'kafka' ? pidsMatching('kafka.Kafka') : [] });
    const started = performance.now();
    const audit = await startAudit({ ...config, databaseUrl }, bus, logger);
    try {
      await waitForPosition(databaseUrl, topicName(prefix, 'calls'), records, Math.max(120_000, records * 2));
      const seconds = (performance.now() - started) / 1000;
      const used = cpu.stop();
      const perRecord = (s: number) => (s * 1000) / records;
      const cpuMsPerRecord = { audit: perRecord(used.audit), postgres: perRecord(used.postgres), kafka: perRecord(used.kafka) };
      const { steady, verifySeconds, chainOk } = await trailFacts(databaseUrl, audit.url, records);
      return { bus: kind, records, seconds, perSecond: records / seconds, steadyPerSecond: steady, verifySeconds, chainOk, cpuMsPerRecord };
    } finally {
      await audit.stop();
    }
  } finally {
    await bus.close();
  }
}

/** The steady rate from the entries' commit times, and a full chain verification over HTTP as a user runs it. */
async function trailFacts(databaseUrl: string, auditUrl: string, records: number): Promise<{ steady: number; verifySeconds: number; chainOk: boolean }> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  const { rows } = await client.query<{ span: number }>(`SELECT extract(epoch FROM max(recorded_at) - min(recorded_at))::float8 AS span FROM audit.entries`).finally(() => client.end());
  const token = await issueDevToken(BENCH_SECRET, { sub: 'bench-auditor', scope: 'estate:admin' });
  const start = performance.now();
  const response = await fetch(`${auditUrl}/v1/audit/verify`, { headers: { authorization: `Bearer ${token}` } });
  const body = (await response.json()) as { ok?: boolean; entries?: number };
  return { steady: rows[0].span > 0 ? records / rows[0].span : records, verifySeconds: (performance.now() - start) / 1000, chainOk: body.ok === true && body.entries === records };
}

export function ingestTable(figures: IngestFigures[]): BenchTable {
  return {
    name: 'audit ingest: call records already in the log, batched chained append (bus transport, one audit instance)',
    rows: figures.map((f) => ({
      bus: f.bus === 'kafka' ? 'Kafka (local broker)' : 'embedded PostgreSQL log',
      records: f.records,
      'wall (s), from consumer start': round(f.seconds, 2),
      'records/s (wall)': Math.round(f.perSecond),
      'records/s (first to last commit)': Math.round(f.steadyPerSecond),
      'CPU ms/record: audit': round(f.cpuMsPerRecord.audit, 4),
      'PostgreSQL': round(f.cpuMsPerRecord.postgres, 4),
      'broker (shared)': round(f.cpuMsPerRecord.kafka, 4),
      'GET /v1/audit/verify (s)': round(f.verifySeconds, 2),
      'chain verifies': f.chainOk ? 'yes' : 'NO',
    })),
  };
}
