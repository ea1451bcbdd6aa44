import { mkdtempSync, rmSync, statSync, writeFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { estateRecordPath, joinEmbeddedEstate, readEstateRecord, removeEstateRecord, writeEstateRecord, type EstateRecord } from './estate.record';

describe('joining a running embedded estate through estate.json', () => {
  let dir: string;
  const alive = (pid: number) => pid === 4242;
  const record = (): EstateRecord => ({
    pid: 4242, startedAt: '2026-01-01T00:00:00.000Z', databaseUrl: 'postgres://estate:estate@127.0.0.1:5999/postgres', topicPrefix: 'p.',
    urls: { edge: 'http://127.0.0.1:8000/mcp', registry: 'http://127.0.0.1:8001', discovery: 'http://127.0.0.1:8002', audit: 'http://127.0.0.1:8003' },
    secretFile: path.join(dir, 'jwt-secret'),
  });

  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'estate-record-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes the record readable by its owner only, and removes it on stop only when it is still its own', () => {
    writeEstateRecord(dir, record());
    expect(statSync(estateRecordPath(dir)).mode & 0o777).toBe(0o600);
    expect(readEstateRecord(dir)).toEqual(record());
    removeEstateRecord(dir, 1);
    expect(existsSync(estateRecordPath(dir))).toBe(true);
    removeEstateRecord(dir, 4242);
    expect(existsSync(estateRecordPath(dir))).toBe(false);
  });

  it('leaves the environment alone with Kafka, or with ESTATE_BUS=postgres', () => {
    const kafka = { KAFKA_BROKERS: 'localhost:9092', ESTATE_DATA_DIR: dir };
    expect(joinEmbeddedEstate(kafka, alive)).toEqual({ env: kafka });
    const direct = { ESTATE_BUS: 'postgres', DATABASE_URL: 'postgres://x/y', ESTATE_DATA_DIR: dir };
    expect(joinEmbeddedEstate(direct, alive)).toEqual({ env: direct });
  });

  it('says that no estate is running, naming the file it looked for', () => {
    expect(() => joinEmbeddedEstate({ ESTATE_DATA_DIR: dir }, alive)).toThrow(`no embedded estate is running (${path.join(dir, 'estate.json')} does not exist)`);
  });

  it('says that the recorded estate died when its process is gone (a crash leaves the file behind)', () => {
    writeEstateRecord(dir, { ...record(), pid: 777 });
    expect(() => joinEmbeddedEstate({ ESTATE_DATA_DIR: dir }, alive)).toThrow('(pid 777) is not running any more');
  });

  it('takes the database, topic prefix, registry URL and development secret from the running estate', () => {
    writeEstateRecord(dir, record());
    writeFileSync(path.join(dir, 'jwt-secret'), 'a-development-secret-of-length\n');
    const joined = joinEmbeddedEstate({ ESTATE_DATA_DIR: dir, ESTATE_STDIO_TOKEN: 't' }, alive);
    expect(joined.env).toEqual({
      ESTATE_DATA_DIR: dir, ESTATE_STDIO_TOKEN: 't', DATABASE_URL: record().databaseUrl, ESTATE_BUS: 'postgres',
      ESTATE_TOPIC_PREFIX: 'p.', ESTATE_REGISTRY_URL: 'http://127.0.0.1:8001', ESTATE_JWT_SECRET: 'a-development-secret-of-length',
    });
    expect(joined.joined).toMatchObject({ pid: 4242, file: estateRecordPath(dir) });
  });

  it('keeps what the caller set: its own prefix, registry and auth', () => {
    writeEstateRecord(dir, record());
    writeFileSync(path.join(dir, 'jwt-secret'), 'a-development-secret-of-length\n');
    const env = { ESTATE_DATA_DIR: dir, ESTATE_TOPIC_PREFIX: '', ESTATE_REGISTRY_URL: 'http://elsewhere', ESTATE_AUTH: 'none' };
    expect(joinEmbeddedEstate(env, alive).env).toEqual({ ...env, DATABASE_URL: record().databaseUrl, ESTATE_BUS: 'postgres' });
  });

  it('hands the brokers on when the estate runs on Kafka', () => {
    writeEstateRecord(dir, { ...record(), kafkaBrokers: ['127.0.0.1:9092', '127.0.0.1:9093'] });
    const { env } = joinEmbeddedEstate({ ESTATE_DATA_DIR: dir, ESTATE_AUTH: 'none' }, alive);
    expect(env).toMatchObject({ KAFKA_BROKERS: '127.0.0.1:9092,127.0.0.1:9093', DATABASE_URL: record().databaseUrl });
    expect(env.ESTATE_BUS).toBeUndefined();
  });

  it('refuses a DATABASE_URL that names another database than the estate it would join', () => {
    writeEstateRecord(dir, record());
    expect(() => joinEmbeddedEstate({ ESTATE_DATA_DIR: dir, DATABASE_URL: 'postgres://other/db' }, alive)).toThrow('DATABASE_URL names another database');
  });
});
