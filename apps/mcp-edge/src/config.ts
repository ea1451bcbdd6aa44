import { EnvReader, readAuth, readCommon, type AuthConfig, type CommonConfig, type Env } from '@estate/platform';
import type { SpoolOptions } from './calls/call.spool';
import { readSpoolConfig } from './calls/spool.config';
import { readEdgeToolConfig, type EdgeToolConfig } from './policy/policy.config';
import { readUpstreamConfig, type UpstreamConfig } from './upstream/upstream.config';

export interface EdgeConfig extends CommonConfig, EdgeToolConfig {
  host: string;
  port: number;
  /** Public base URL, used in the WWW-Authenticate challenge and resource metadata. */
  publicUrl?: string;
  allowedOrigins: string[];
  allowedHosts: string[];
  auth: AuthConfig;
  sessionIdleMs: number;
  /** Open HTTP sessions per subject and tenant. */
  maxSessionsPerPrincipal: number;
  maxBodyBytes: number;
  upstreamTimeoutMs: number;
  /** Read limits, re-listing and the text rule for what upstreams send (upstream/upstream.config.ts). */
  upstream: UpstreamConfig;
  groupPrefix: string;
  /**
   * Key of the MAC that seals 2026-07-28 `requestState` values (ESTATE_REQUEST_STATE_KEY). Copies
   * behind one address need the same key to accept each other's states; unset, each process makes
   * its own at start.
   */
  requestStateKey?: string;
  /**
   * How long a 2026-07-28 call whose upstream asked the agent something stays parked waiting for
   * the retry with the answers (ESTATE_INPUT_PARK_TTL_SECONDS, 60); then the question is withdrawn.
   */
  inputParkTtlMs: number;
  /**
   * PostgreSQL for the spent confirmation states every copy shares (ESTATE_EDGE_DATABASE_URL,
   * schema `edge`). Unset: each copy remembers only what it ran itself.
   */
  edgeDatabaseUrl?: string;
  /** Where call records wait for the bus (calls/spool.config.ts). */
  spool: SpoolOptions;
}

const LOOPBACK = ['127.0.0.1', '::1', 'localhost'];

export function isLoopback(host: string): boolean {
  return LOOPBACK.includes(host) || host.startsWith('127.');
}

/**
 * Reads ESTATE_EDGE_HOST (127.0.0.1), ESTATE_EDGE_PORT (8000), ESTATE_EDGE_PUBLIC_URL,
 * ESTATE_ALLOWED_ORIGINS, ESTATE_ALLOWED_HOSTS, ESTATE_SESSION_IDLE_SECONDS,
 * ESTATE_MAX_SESSIONS_PER_PRINCIPAL (32), ESTATE_MAX_BODY_BYTES, ESTATE_UPSTREAM_TIMEOUT_MS, ESTATE_EDGE_GROUP,
 * ESTATE_REQUEST_STATE_KEY, ESTATE_INPUT_PARK_TTL_SECONDS (60), ESTATE_EDGE_DATABASE_URL, the upstream settings
 * (upstream/upstream.config.ts), the call spool (calls/spool.config.ts), the tool-call settings
 * (policy/policy.config.ts: rate limits, size limits) and the shared settings.
 * ESTATE_AUTH=none is refused unless the edge listens on loopback only.
 */
export function loadEdgeConfig(env: Env): EdgeConfig {
  const reader = new EnvReader(env);
  const host = reader.string('ESTATE_EDGE_HOST', '127.0.0.1');
  const auth = readAuth(reader);
  if (auth.mode === 'none' && !isLoopback(host)) {
    reader.problems.push(`ESTATE_AUTH=none is only allowed when ESTATE_EDGE_HOST is a loopback address (got ${host})`);
  }
  const sessionIdleMs = reader.duration('ESTATE_SESSION_IDLE_SECONDS', 900, { unit: 's' });
  const maxBody = Number(reader.string('ESTATE_MAX_BODY_BYTES', String(1024 * 1024)));
  if (!(maxBody > 0)) reader.problems.push('ESTATE_MAX_BODY_BYTES must be a positive number');
  const timeout = reader.duration('ESTATE_UPSTREAM_TIMEOUT_MS', 30_000, { unit: 'ms' });
  const requestStateKey = reader.optional('ESTATE_REQUEST_STATE_KEY');
  if (requestStateKey !== undefined && requestStateKey.length < 32) reader.problems.push('ESTATE_REQUEST_STATE_KEY must be at least 32 characters (a random secret shared by every edge copy)');
  const edgeDatabaseUrl = reader.optional('ESTATE_EDGE_DATABASE_URL');
  if (edgeDatabaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(edgeDatabaseUrl)) reader.problems.push('ESTATE_EDGE_DATABASE_URL must be a postgres:// or postgresql:// URL');
  const tools = readEdgeToolConfig(reader);
  return reader.finish({
    ...readCommon(reader),
    ...tools,
    upstream: readUpstreamConfig(reader, tools.policy.maxResultBytes),
    host,
    port: reader.port('ESTATE_EDGE_PORT', 8000),
    publicUrl: reader.optional('ESTATE_EDGE_PUBLIC_URL'),
    allowedOrigins: reader.list('ESTATE_ALLOWED_ORIGINS'),
    allowedHosts: reader.list('ESTATE_ALLOWED_HOSTS'),
    auth,
    sessionIdleMs,
    maxSessionsPerPrincipal: reader.integer('ESTATE_MAX_SESSIONS_PER_PRINCIPAL', 32, 1),
    maxBodyBytes: maxBody,
    upstreamTimeoutMs: timeout,
    groupPrefix: reader.string('ESTATE_EDGE_GROUP', 'estate-edge'),
    requestStateKey,
    inputParkTtlMs: reader.duration('ESTATE_INPUT_PARK_TTL_SECONDS', 60, { unit: 's', wholeFrom: 1 }),
    edgeDatabaseUrl,
    spool: readSpoolConfig(reader),
  });
}
