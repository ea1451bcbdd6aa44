import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { EnvReader, type Env } from './env.reader';

/**
 * What a running `npm start` tells other processes on the machine (`estate stdio`, a service
 * started on its own) so they can join it: where its durable log is and where its services
 * listen. It holds the database URL, so it is written 0600 into the data directory.
 */
export interface EstateRecord {
  pid: number;
  startedAt: string;
  /** The estate's database; its `bus` schema holds the event log unless the estate runs on Kafka. */
  databaseUrl: string;
  /** Set when the estate runs on Kafka: joiners then read the same brokers. */
  kafkaBrokers?: string[];
  topicPrefix: string;
  urls: { edge: string; registry: string; discovery: string; audit: string; console?: string };
  /** The development JWT secret's file, when npm start made one (joiners verify tokens with it). */
  secretFile?: string;
}

export const ESTATE_RECORD_FILE = 'estate.json';

export function estateRecordPath(dataDir: string): string {
  return path.resolve(dataDir, ESTATE_RECORD_FILE);
}

/** Written whole or not at all: a joiner never reads half a file. */
export function writeEstateRecord(dataDir: string, record: EstateRecord): void {
  const file = estateRecordPath(dataDir);
  const temporary = `${file}.${record.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
  renameSync(temporary, file);
}

/** On a clean stop; a record another estate wrote since is left alone. */
export function removeEstateRecord(dataDir: string, pid: number): void {
  if (readEstateRecord(dataDir)?.pid === pid) rmSync(estateRecordPath(dataDir), { force: true });
}

export function readEstateRecord(dataDir: string): EstateRecord | undefined {
  const file = estateRecordPath(dataDir);
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as EstateRecord;
  } catch (error) {
    throw new Error(`${file} is not a readable estate record (${error instanceof Error ? error.message : String(error)}); remove it and start npm start again`, { cause: error });
  }
}

/** Signal 0 asks the kernel whether the process exists; EPERM means it does, under another user. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface JoinedEnv {
  env: Env;
  /** The estate joined, when the bus comes from a running `npm start`. */
  joined?: EstateRecord & { file: string };
}

/**
 * Without KAFKA_BROKERS (and without ESTATE_BUS=postgres, which names the log in DATABASE_URL
 * directly) a process joins the embedded estate running from ESTATE_DATA_DIR: the returned
 * environment carries its database (and its brokers, when it runs on Kafka), topic prefix,
 * registry URL and development secret wherever the caller's environment left them unset.
 * Throws a one-line reason when there is none to join.
 */
export function joinEmbeddedEstate(env: Env, alive: (pid: number) => boolean = processAlive): JoinedEnv {
  const reader = new EnvReader(env);
  if (reader.list('KAFKA_BROKERS').length > 0 || reader.optional('ESTATE_BUS') !== undefined) return { env };
  const dataDir = reader.string('ESTATE_DATA_DIR', '.estate');
  const file = estateRecordPath(dataDir);
  const record = readEstateRecord(dataDir);
  if (!record) {
    throw new Error(`KAFKA_BROKERS is not set and no embedded estate is running (${file} does not exist): start one with \`npm start\` `
      + '(and point ESTATE_DATA_DIR at its data directory), set KAFKA_BROKERS, or set DATABASE_URL with ESTATE_BUS=postgres');
  }
  if (!alive(record.pid)) {
    throw new Error(`the embedded estate recorded in ${file} (pid ${record.pid}) is not running any more; start it again with \`npm start\``);
  }
  const databaseUrl = reader.optional('DATABASE_URL');
  if (databaseUrl !== undefined && databaseUrl !== record.databaseUrl) {
    throw new Error(`DATABASE_URL names another database than the running estate's (${file}): unset it to join that estate, or set ESTATE_BUS=postgres to use the log in DATABASE_URL`);
  }
  const onKafka = (record.kafkaBrokers ?? []).length > 0;
  const filled: Record<string, string | undefined> = {
    ...env, DATABASE_URL: record.databaseUrl, ...(onKafka ? { KAFKA_BROKERS: record.kafkaBrokers?.join(',') } : { ESTATE_BUS: 'postgres' }),
  };
  if (env.ESTATE_TOPIC_PREFIX === undefined) filled.ESTATE_TOPIC_PREFIX = record.topicPrefix;
  if (reader.optional('ESTATE_REGISTRY_URL') === undefined) filled.ESTATE_REGISTRY_URL = record.urls.registry;
  const authSet = ['ESTATE_JWT_SECRET', 'ESTATE_JWKS_URL'].some((name) => reader.optional(name) !== undefined) || reader.optional('ESTATE_AUTH') === 'none';
  if (!authSet && record.secretFile && existsSync(record.secretFile)) filled.ESTATE_JWT_SECRET = readFileSync(record.secretFile, 'utf8').trim();
  return { env: filled, joined: { ...record, file } };
}
