import type { EnvReader } from '@estate/platform';
import type { SpoolOptions } from './call.spool';

export const DEFAULT_SPOOL: SpoolOptions = { dir: '.estate/edge-spool', maxBytes: 128 * 1024 * 1024, syncMs: 10 };

/**
 * ESTATE_CALL_SPOOL_DIR (`edge-spool` under ESTATE_DATA_DIR, which is `.estate` unless set: the
 * embedded estate keeps its database there too), ESTATE_CALL_SPOOL_MAX_BYTES (128 MiB),
 * ESTATE_CALL_SPOOL_SYNC_MS (10; 0 syncs before every answer).
 */
export function readSpoolConfig(reader: EnvReader): SpoolOptions {
  return {
    dir: reader.string('ESTATE_CALL_SPOOL_DIR', `${reader.string('ESTATE_DATA_DIR', '.estate').replace(/\/+$/, '')}/edge-spool`),
    maxBytes: reader.integer('ESTATE_CALL_SPOOL_MAX_BYTES', DEFAULT_SPOOL.maxBytes, 1024),
    syncMs: reader.duration('ESTATE_CALL_SPOOL_SYNC_MS', DEFAULT_SPOOL.syncMs, { unit: 'ms', wholeFrom: 0 }),
  };
}
