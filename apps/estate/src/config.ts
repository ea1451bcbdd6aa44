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

/** Reads ESTATE_DATA_DIR (.estate), ESTATE_PG_PORT, ESTATE_DEMO (1), BANK_PORT (9100), LOG_FORMAT (auto) and ESTATE_THREADS (2). */
export function loadEmbeddedConfig(env: Env): EmbeddedConfig {
  const reader = new EnvReader(env);
  const pgPort = reader.optional('ESTATE_PG_PORT');
  return reader.finish({
    dataDir: reader.string('ESTATE_DATA_DIR', '.estate'),
    postgresPort: pgPort === undefined ? undefined : reader.port('ESTATE_PG_PORT', 0),
    demo: reader.oneOf('ESTATE_DEMO', ['0', '1'], '1') === '1',
    bankPort: reader.port('BANK_PORT', 9100),
    logFormat: reader.oneOf('LOG_FORMAT', LOG_FORMATS, 'auto'),
    threads: reader.oneOf('ESTATE_THREADS', ['1', '2'], '2') === '1' ? 1 : 2,
  });
}
