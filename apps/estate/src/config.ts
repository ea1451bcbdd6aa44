import os from 'node:os';
import { EnvReader, LOG_FORMATS, LOG_LEVELS, type Env, type LogFormat } from '@estate/platform';
import { loadAuditConfig } from '../../audit/src/config';
import { loadConsoleConfig } from '../../console/src/config';
import { loadDiscoveryConfig } from '../../discovery/src/config';
import { loadEdgeConfig } from '../../mcp-edge/src/config';
import { loadRegistryConfig } from '../../registry/src/config';

export interface EmbeddedConfig {
  dataDir: string;
  postgresPort?: number;
  /** Start the sample bank upstream and publish its tools, so a first run has something to list. */
  demo: boolean;
  bankPort: number;
  /** LOG_LEVEL, checked before a logger is made with it (pino throws on a level it does not know). */
  logLevel: string;
  logFormat: LogFormat;
  /** 2: discovery, audit and the edge on a second thread beside the registry; 1: every service on one. */
  threads: 1 | 2;
}

/** Reads ESTATE_DATA_DIR (.estate), ESTATE_PG_PORT, ESTATE_DEMO (1), BANK_PORT (9100), LOG_LEVEL (info), LOG_FORMAT (auto) and ESTATE_THREADS (auto). */
export function loadEmbeddedConfig(env: Env, cores = os.availableParallelism()): EmbeddedConfig {
  const reader = new EnvReader(env);
  const pgPort = reader.optional('ESTATE_PG_PORT');
  return reader.finish({
    dataDir: reader.string('ESTATE_DATA_DIR', '.estate'),
    postgresPort: pgPort === undefined ? undefined : reader.port('ESTATE_PG_PORT', 0),
    demo: reader.oneOf('ESTATE_DEMO', ['0', '1'], '1') === '1',
    bankPort: reader.port('BANK_PORT', 9100),
    logLevel: reader.oneOf('LOG_LEVEL', LOG_LEVELS, 'info'),
    logFormat: reader.oneOf('LOG_FORMAT', LOG_FORMATS, 'auto'),
    threads: threadsFor(reader.oneOf('ESTATE_THREADS', ['auto', '1', '2'], 'auto'), cores),
  });
}

/**
 * `auto`: a second thread only with more than two cores. On two, PostgreSQL and the load already
 * share them with the one thread; measured under 16 publishing clients, a second thread there
 * served no more publishes and cost about 10 % more CPU per publish (two event loops, two buses).
 */
function threadsFor(setting: 'auto' | '1' | '2', cores: number): 1 | 2 {
  if (setting === 'auto') return cores > 2 ? 2 : 1;
  return setting === '1' ? 1 : 2;
}

/**
 * Whether the environment says how tokens are checked (no auth, a shared secret or a JWKS URL); when
 * it does not, npm start makes a development secret of its own. An empty setting is no setting.
 */
export function authChosen(env: Env): boolean {
  return env.ESTATE_AUTH === 'none' || Boolean(env.ESTATE_JWT_SECRET) || Boolean(env.ESTATE_JWKS_URL);
}

/**
 * `npm start`'s settings and every service's, read before anything starts, every problem listed
 * at once: read one service at a time, a bad setting of a later one showed only after the first
 * was fixed (and after PostgreSQL had started). The secrets npm start makes for itself when none
 * is set count as set.
 */
export function loadEstateConfig(env: Env, cores = os.availableParallelism()): EmbeddedConfig {
  const problems: string[] = [];
  const attempt = <T>(load: () => T): T | undefined => {
    try {
      return load();
    } catch (error) {
      problems.push(...problemsOf(error));
      return undefined;
    }
  };
  const embedded = attempt(() => loadEmbeddedConfig(env, cores));
  const filled: Env = { ...env, ...(authChosen(env) ? {} : { ESTATE_JWT_SECRET: 'a-development-secret-made-at-start' }) };
  for (const load of [loadRegistryConfig, loadDiscoveryConfig, loadAuditConfig, loadEdgeConfig, loadConsoleConfig]) attempt(() => load(filled));
  if (problems.length > 0 || embedded === undefined) throw new Error(`Invalid configuration:\n  - ${[...new Set(problems)].join('\n  - ')}`);
  return embedded;
}

/** The problems a config loader listed (EnvReader's "Invalid configuration:" form), or the error's message. */
function problemsOf(error: unknown): string[] {
  const message = error instanceof Error ? error.message : String(error);
  const listed = /^Invalid configuration:\n([\s\S]*)$/.exec(message)?.[1];
  return listed === undefined ? [message] : listed.split('\n').map((line) => line.replace(/^\s*-\s*/, '')).filter((line) => line !== '');
}
