import { LOG_LEVELS, type LogLevel } from './stateless-revision.types';

/**
 * Whether a log message at `level` may go back on a stateless request's stream. The level is
 * chosen per request in `_meta`; a request that chose none receives no log messages at all.
 */
export function logLevelAdmits(requested: LogLevel | undefined, level: LogLevel): boolean {
  if (requested === undefined) return false;
  return LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(requested);
}
