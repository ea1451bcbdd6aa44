import type { DataClassification } from '@estate/contracts';
import { LOG_FORMATS, LOG_LEVELS, type LogFormat } from './logger';
import { DEFAULT_TOKEN_TIME_LIMITS, type AuthConfig } from './principal.auth';
import { DEFAULT_CALLS_RETENTION_MS } from './topic.specs';

export type Env = Readonly<Record<string, string | undefined>>;

/** The longest delay Node's timers hold (2^31-1 ms): a longer one, or Infinity, fires after 1 ms. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** How a duration setting is written: its unit, and whole numbers from `wholeFrom` (else any number above 0). */
export interface DurationRule {
  unit: 'ms' | 's';
  wholeFrom?: number;
}

/** Reads typed values out of an environment and collects every problem, so boot fails once with all of them. */
export class EnvReader {
  readonly problems: string[] = [];

  constructor(private readonly env: Env) {}

  string(name: string, fallback: string): string {
    const value = this.env[name];
    return value === undefined || value === '' ? fallback : value;
  }

  optional(name: string): string | undefined {
    const value = this.env[name];
    return value === undefined || value === '' ? undefined : value;
  }

  port(name: string, fallback: number): number {
    const raw = this.optional(name);
    if (raw === undefined) return fallback;
    const port = Number(raw);
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      this.problems.push(`${name} must be a port number (0-65535), got "${raw}"`);
      return fallback;
    }
    return port;
  }

  /** A whole number no smaller than `min`. */
  integer(name: string, fallback: number, min = 0): number {
    const raw = this.optional(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min) {
      this.problems.push(`${name} must be a whole number of at least ${min}, got "${raw}"`);
      return fallback;
    }
    return value;
  }

  /** A number above zero (fractions allowed). */
  positive(name: string, fallback: number): number {
    const raw = this.optional(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!(value > 0) || !Number.isFinite(value)) {
      this.problems.push(`${name} must be a positive number, got "${raw}"`);
      return fallback;
    }
    return value;
  }

  /**
   * A duration written in `rule.unit`, returned in milliseconds. It must be finite and fit a timer
   * (MAX_TIMER_MS): setTimeout turns anything longer into 1 ms, a busy loop or a check that never waits.
   */
  duration(name: string, fallback: number, rule: DurationRule): number {
    const scale = rule.unit === 's' ? 1000 : 1;
    const raw = this.optional(name);
    if (raw === undefined) return fallback * scale;
    const value = Number(raw);
    const most = Math.floor(MAX_TIMER_MS / scale);
    const least = rule.wholeFrom;
    const fits = (least === undefined ? value > 0 : Number.isInteger(value) && value >= least) && value <= most;
    if (fits) return value * scale;
    const unit = rule.unit === 's' ? 'seconds' : 'milliseconds';
    const shape = least === undefined ? `a positive number of ${unit}, at most ${most}` : `a whole number of ${unit} from ${least} to ${most}`;
    this.problems.push(`${name} must be ${shape} (the longest a timer can wait is 2^31-1 ms), got "${raw}"`);
    return fallback * scale;
  }

  list(name: string, separator = ','): string[] {
    return (this.optional(name) ?? '').split(separator).map((s) => s.trim()).filter((s) => s.length > 0);
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const raw = this.optional(name);
    if (raw === undefined) return fallback;
    if (!(allowed as readonly string[]).includes(raw)) {
      this.problems.push(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
      return fallback;
    }
    return raw as T;
  }

  /** Throws one error listing every problem found so far. */
  finish<T>(config: T): T {
    if (this.problems.length > 0) {
      throw new Error(`Invalid configuration:\n  - ${this.problems.join('\n  - ')}`);
    }
    return config;
  }
}

export interface CommonConfig {
  databaseUrl?: string;
  kafkaBrokers: string[];
  /** Kafka when brokers are given; otherwise the durable log in PostgreSQL (`bus` schema of DATABASE_URL). */
  bus: 'kafka' | 'postgres';
  topicPrefix: string;
  logLevel: string;
  /** LOG_FORMAT: `auto` is readable on a terminal and JSON elsewhere. */
  logFormat: LogFormat;
  /** How long estate.calls keeps calls (retention.ms); the registry log is always kept forever. */
  callsRetentionMs: number;
  health: HealthConfig;
  /** ESTATE_METRICS_TOKEN: the bearer secret a scraper shows for /metrics; unset, only loopback clients get them. */
  metricsToken?: string;
  /** How events leaving the estate name it (CloudEvents `source`) and where their schemas are served (`dataschema`). */
  cloudEvents: { source: string; schemaBase: string; auditUrl: string };
}

/** What `/readyz` holds a service to. */
export interface HealthConfig {
  /** A consumer further behind the end of its log than this (messages) is not ready; also the registry's relay backlog. */
  maxLag: number;
  /** A consumer failing on or busy with one message this long, or not moving while messages wait, is stuck. */
  stallMs: number;
  /** How long the database gets to answer `SELECT 1`. */
  checkTimeoutMs: number;
}

export function readCommon(reader: EnvReader): CommonConfig {
  const kafkaBrokers = reader.list('KAFKA_BROKERS');
  const bus = reader.oneOf('ESTATE_BUS', ['kafka', 'postgres'], kafkaBrokers.length > 0 ? 'kafka' : 'postgres');
  if (bus === 'kafka' && kafkaBrokers.length === 0) reader.problems.push('ESTATE_BUS=kafka needs KAFKA_BROKERS');
  if (bus === 'postgres' && kafkaBrokers.length > 0) reader.problems.push('ESTATE_BUS=postgres and KAFKA_BROKERS contradict each other: set one of them');
  return {
    databaseUrl: reader.optional('DATABASE_URL'),
    kafkaBrokers,
    bus,
    topicPrefix: reader.string('ESTATE_TOPIC_PREFIX', ''),
    logLevel: reader.oneOf('LOG_LEVEL', LOG_LEVELS, 'info'),
    logFormat: reader.oneOf('LOG_FORMAT', LOG_FORMATS, 'auto'),
    callsRetentionMs: readRetention(reader, 'ESTATE_CALLS_RETENTION_MS', DEFAULT_CALLS_RETENTION_MS),
    health: readHealth(reader),
    metricsToken: readMetricsToken(reader),
    cloudEvents: readCloudEvents(reader),
  };
}

/** ESTATE_ID names the estate in every CloudEvent; ESTATE_AUDIT_PUBLIC_URL is where audit serves the event schemas. */
function readCloudEvents(reader: EnvReader): CommonConfig['cloudEvents'] {
  const id = reader.string('ESTATE_ID', 'local');
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(id)) reader.problems.push('ESTATE_ID must be 1-64 letters, digits, . _ or -');
  const auditUrl = reader.string('ESTATE_AUDIT_PUBLIC_URL', 'http://127.0.0.1:8003');
  if (!/^https?:\/\/[^\s]+$/.test(auditUrl)) reader.problems.push('ESTATE_AUDIT_PUBLIC_URL must be an http(s) URL');
  const base = auditUrl.replace(/\/+$/, '');
  return { source: `urn:estate:${id}`, schemaBase: `${base}/v1/schemas/events`, auditUrl: base };
}

function readMetricsToken(reader: EnvReader): string | undefined {
  const token = reader.optional('ESTATE_METRICS_TOKEN');
  if (token !== undefined && token.length < 16) reader.problems.push('ESTATE_METRICS_TOKEN must be at least 16 characters');
  return token;
}

function readHealth(reader: EnvReader): HealthConfig {
  return {
    maxLag: reader.positive('ESTATE_READY_MAX_LAG', 1000),
    stallMs: reader.duration('ESTATE_READY_STALL_SECONDS', 30, { unit: 's' }),
    checkTimeoutMs: reader.duration('ESTATE_READY_TIMEOUT_MS', 2000, { unit: 'ms' }),
  };
}

/** A retention in milliseconds: a positive integer, or -1 for unlimited. */
function readRetention(reader: EnvReader, name: string, fallback: number): number {
  const raw = reader.optional(name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || (value <= 0 && value !== -1)) {
    reader.problems.push(`${name} must be a positive number of milliseconds or -1 (unlimited), got "${raw}"`);
    return fallback;
  }
  return value;
}

const CLEARANCES: readonly DataClassification[] = ['public', 'internal', 'confidential', 'restricted'];

export function readAuth(reader: EnvReader): AuthConfig {
  const mode = reader.oneOf('ESTATE_AUTH', ['jwt', 'none'], 'jwt');
  if (mode === 'none') {
    return {
      mode: 'none',
      principal: {
        id: reader.string('ESTATE_LOCAL_PRINCIPAL', 'local'),
        tenant: reader.optional('ESTATE_LOCAL_TENANT'),
        scopes: reader.list('ESTATE_LOCAL_SCOPES', ' '),
        clearance: reader.oneOf('ESTATE_LOCAL_CLEARANCE', CLEARANCES, 'internal'),
      },
    };
  }
  const secret = reader.optional('ESTATE_JWT_SECRET');
  const jwksUrl = reader.optional('ESTATE_JWKS_URL');
  if (!secret && !jwksUrl) reader.problems.push('set ESTATE_JWT_SECRET (HS256) or ESTATE_JWKS_URL, or ESTATE_AUTH=none for local use');
  if (secret && secret.length < 16) reader.problems.push('ESTATE_JWT_SECRET must be at least 16 characters');
  return {
    mode: 'jwt',
    secret,
    jwksUrl,
    issuer: reader.optional('ESTATE_JWT_ISSUER'),
    audience: reader.optional('ESTATE_JWT_AUDIENCE'),
    maxLifetimeSeconds: reader.integer('ESTATE_JWT_MAX_LIFETIME_SECONDS', DEFAULT_TOKEN_TIME_LIMITS.maxLifetimeSeconds, 1),
    clockSkewSeconds: reader.integer('ESTATE_JWT_CLOCK_SKEW_SECONDS', DEFAULT_TOKEN_TIME_LIMITS.clockSkewSeconds, 0),
  };
}
