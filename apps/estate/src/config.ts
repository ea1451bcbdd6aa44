import os from 'node:os';
import { EnvReader, LOG_FORMATS, type Env, type LogFormat } from '@estate/platform';

export interface EmbeddedConfig {
  dataDir: string;
  postgresPort?: number;
  /** Start the sample bank upstream and publish its tools, so a first run has something to list. */
  demo: boolean;
  bankPort: number;
  logFormat: LogFormat;
  /** 2: discovery, audit and the edge on a second thread beside the registry; 1: every service on one. */
  threads: 1 | 2;
}

/** Reads ESTATE_DATA_DIR (.estate), ESTATE_PG_PORT, ESTATE_DEMO (1), BANK_PORT (9100), LOG_FORMAT (auto) and ESTATE_THREADS (auto). */
export function loadEmbeddedConfig(env: Env, cores = os.availableParallelism()): EmbeddedConfig {
  const reader = new EnvReader(env);
  const pgPort = reader.optional('ESTATE_PG_PORT');
  return reader.finish({
    dataDir: reader.string('ESTATE_DATA_DIR', '.estate'),
    postgresPort: pgPort === undefined ? undefined : reader.port('ESTATE_PG_PORT', 0),
    demo: reader.oneOf('ESTATE_DEMO', ['0', '1'], '1') === '1',
    bankPort: reader.port('BANK_PORT', 9100),
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
